r"""``BurgersElement``: a Maxwell element in series with a Kelvin-Voigt element,

.. math::
   \sigma = E_M(\varepsilon - \varepsilon_{vM} - \varepsilon_K), \qquad
   \dot\varepsilon_{vM} = \sigma/\eta_M, \qquad
   \dot\varepsilon_K = (\sigma - E_K\,\varepsilon_K)/\eta_K .

Derivatives follow from :math:`\mathrm d\sigma = E_M(\mathrm d\varepsilon -
\mathrm d\varepsilon_{vM} - \mathrm d\varepsilon_K) + (\varepsilon - \varepsilon_{vM} -
\varepsilon_K)\,\mathrm dE_M`, :math:`\mathrm d\dot\varepsilon_{vM} = \mathrm d\sigma/\eta_M -
\dot\varepsilon_{vM}\,\mathrm d\eta_M/\eta_M` and :math:`\mathrm d\dot\varepsilon_K = (\mathrm
d\sigma - E_K\,\mathrm d\varepsilon_K - \varepsilon_K\,\mathrm dE_K - \dot\varepsilon_K\,\mathrm
d\eta_K)/\eta_K`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["BurgersElement"]


@register_neml2_object("BurgersElement")
class BurgersElement(Model):
    """Burgers element: Maxwell spring + dashpot in series with a Kelvin-Voigt element."""

    hit = HitSchema(
        input("strain", SR2, "Total strain"),
        input("maxwell_viscous_strain", SR2, "Viscous strain of the Maxwell dashpot"),
        input("kelvin_voigt_strain", SR2, "Strain of the Kelvin-Voigt element"),
        output("stress", SR2, "Stress"),
        derived_output("maxwell_viscous_strain", SR2, suffix="_rate"),
        derived_output("kelvin_voigt_strain", SR2, suffix="_rate"),
        parameter("maxwell_modulus", Scalar, "Maxwell spring modulus E_M", allow_promotion=True),
        parameter("maxwell_viscosity", Scalar, "Maxwell dashpot viscosity eta_M",
                  allow_promotion=True),
        parameter("kelvin_modulus", Scalar, "Kelvin-Voigt spring modulus E_K", allow_promotion=True),
        parameter("kelvin_viscosity", Scalar, "Kelvin-Voigt dashpot viscosity eta_K",
                  allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_sign(
            self, ("maxwell_modulus", "maxwell_viscosity", "kelvin_modulus", "kelvin_viscosity")
        )

    def forward(self, e: Any, evm: Any, ek: Any, *promoted: Any, v: Any = None) -> Any:
        """Stress, the two internal strain rates and (with ``v``) their tangents."""
        em = self._get_param("maxwell_modulus", promoted)
        eta_m = self._get_param("maxwell_viscosity", promoted)
        kk = self._get_param("kelvin_modulus", promoted)
        eta_k = self._get_param("kelvin_viscosity", promoted)
        ee = e - evm - ek
        s = em * ee
        rate_m = s / eta_m
        rate_k = (s - kk * ek) / eta_k
        if v is None:
            return s, rate_m, rate_k
        ds: dict[str, Any] = {
            "strain": lambda d: em * d,
            "maxwell_viscous_strain": lambda d: -em * d,
            "kelvin_voigt_strain": lambda d: -em * d,
        }
        add_action(ds, self.promoted_input("maxwell_modulus"), lambda d: d * ee)
        dm: dict[str, Any] = {k: (lambda d, f=f: f(d) / eta_m) for k, f in ds.items()}
        dk: dict[str, Any] = {k: (lambda d, f=f: f(d) / eta_k) for k, f in ds.items()}
        add_action(dm, self.promoted_input("maxwell_viscosity"), lambda d: -(d / eta_m) * rate_m)
        add_action(dk, "kelvin_voigt_strain", lambda d: -(kk / eta_k) * d)
        add_action(dk, self.promoted_input("kelvin_modulus"), lambda d: -(d / eta_k) * ek)
        add_action(dk, self.promoted_input("kelvin_viscosity"), lambda d: -(d / eta_k) * rate_k)
        (vs,) = self.propagate_tangents(v, "stress", ds, output=s)
        (vm,) = self.propagate_tangents(v, "maxwell_viscous_strain_rate", dm, output=rate_m)
        (vk,) = self.propagate_tangents(v, "kelvin_voigt_strain_rate", dk, output=rate_k)
        return s, rate_m, rate_k, {**vs, **vm, **vk}
