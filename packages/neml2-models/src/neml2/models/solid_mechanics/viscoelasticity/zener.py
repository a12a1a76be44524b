r"""``ZenerElement`` (standard linear solid): an equilibrium spring parallel to a Maxwell arm,

.. math::
   \sigma = E_\infty\,\varepsilon + E_M(\varepsilon - \varepsilon_v), \qquad
   \dot\varepsilon_v = E_M(\varepsilon - \varepsilon_v)/\eta_M .

With :math:`\sigma_M = E_M(\varepsilon - \varepsilon_v)`: :math:`\partial\sigma/\partial\varepsilon
= E_\infty + E_M`, :math:`\partial\sigma/\partial\varepsilon_v = -E_M`,
:math:`\partial\dot\varepsilon_v/\partial(\varepsilon, \varepsilon_v) = \pm E_M/\eta_M`,
:math:`\partial\sigma/\partial E_\infty = \varepsilon`, :math:`\partial\sigma/\partial E_M
= \varepsilon - \varepsilon_v`, :math:`\partial\dot\varepsilon_v/\partial E_M = (\varepsilon -
\varepsilon_v)/\eta_M`, :math:`\partial\dot\varepsilon_v/\partial\eta_M = -\dot\varepsilon_v/\eta_M`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["ZenerElement"]


@register_neml2_object("ZenerElement")
class ZenerElement(Model):
    """Zener (standard linear solid) element with one Maxwell arm."""

    hit = HitSchema(
        input("strain", SR2, "Total strain"),
        input("viscous_strain", SR2, "Viscous strain of the Maxwell arm"),
        output("stress", SR2, "Stress"),
        derived_output("viscous_strain", SR2, suffix="_rate"),
        parameter("equilibrium_modulus", Scalar, "Equilibrium modulus E_inf", allow_promotion=True),
        parameter("maxwell_modulus", Scalar, "Maxwell arm modulus E_M", allow_promotion=True),
        parameter("maxwell_viscosity", Scalar, "Maxwell arm viscosity eta_M", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        check_sign(self, ("equilibrium_modulus",), allow_zero=True)
        check_sign(self, ("maxwell_modulus", "maxwell_viscosity"))

    def forward(self, e: Any, ev: Any, *promoted: Any, v: Any = None) -> Any:
        """Stress, viscous strain rate and (with ``v``) their tangents."""
        e_inf = self._get_param("equilibrium_modulus", promoted)
        em = self._get_param("maxwell_modulus", promoted)
        eta = self._get_param("maxwell_viscosity", promoted)
        ee = e - ev
        s = e_inf * e + em * ee
        rate = em / eta * ee
        if v is None:
            return s, rate
        ds: dict[str, Any] = {
            "strain": lambda d: (e_inf + em) * d,
            "viscous_strain": lambda d: -em * d,
        }
        dr: dict[str, Any] = {
            "strain": lambda d: (em / eta) * d,
            "viscous_strain": lambda d: -(em / eta) * d,
        }
        add_action(ds, self.promoted_input("equilibrium_modulus"), lambda d: d * e)
        add_action(ds, self.promoted_input("maxwell_modulus"), lambda d: d * ee)
        add_action(dr, self.promoted_input("maxwell_modulus"), lambda d: (d / eta) * ee)
        add_action(dr, self.promoted_input("maxwell_viscosity"), lambda d: -(d / eta) * rate)
        (vs,) = self.propagate_tangents(v, "stress", ds, output=s)
        (vr,) = self.propagate_tangents(v, "viscous_strain_rate", dr, output=rate)
        return s, rate, {**vs, **vr}
