r"""``WiechertElement`` (generalized Maxwell): an equilibrium spring parallel to two Maxwell arms,

.. math::
   \sigma = E_\infty\,\varepsilon + \sum_{i=1,2} E_i(\varepsilon - \varepsilon_{vi}), \qquad
   \dot\varepsilon_{vi} = E_i(\varepsilon - \varepsilon_{vi})/\eta_i .

Its relaxation modulus is the Prony series :math:`E(t) = E_\infty + \sum_i E_i e^{-t E_i/\eta_i}`.
Derivatives: :math:`\partial\sigma/\partial\varepsilon = E_\infty + \sum_i E_i`,
:math:`\partial\sigma/\partial\varepsilon_{vi} = -E_i`, :math:`\partial\dot\varepsilon_{vi}/
\partial(\varepsilon, \varepsilon_{vi}) = \pm E_i/\eta_i`; with respect to the moduli
:math:`\partial\sigma/\partial E_\infty = \varepsilon`, :math:`\partial\sigma/\partial E_i =
\varepsilon - \varepsilon_{vi}`, :math:`\partial\dot\varepsilon_{vi}/\partial E_i =
(\varepsilon - \varepsilon_{vi})/\eta_i`, :math:`\partial\dot\varepsilon_{vi}/\partial\eta_i =
-\dot\varepsilon_{vi}/\eta_i`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action, times
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["WiechertElement"]

_ARMS = (1, 2)


@register_neml2_object("WiechertElement")
class WiechertElement(Model):
    """Wiechert (generalized Maxwell) element with an equilibrium spring and two Maxwell arms."""

    hit = HitSchema(
        input("strain", SR2, "Total strain"),
        input("viscous_strain_1", SR2, "Viscous strain of Maxwell arm 1"),
        input("viscous_strain_2", SR2, "Viscous strain of Maxwell arm 2"),
        output("stress", SR2, "Stress"),
        derived_output("viscous_strain_1", SR2, suffix="_rate"),
        derived_output("viscous_strain_2", SR2, suffix="_rate"),
        parameter("equilibrium_modulus", Scalar, "Equilibrium modulus E_inf", allow_promotion=True),
        parameter("modulus_1", Scalar, "Modulus E_1 of arm 1", allow_promotion=True),
        parameter("viscosity_1", Scalar, "Viscosity eta_1 of arm 1", allow_promotion=True),
        parameter("modulus_2", Scalar, "Modulus E_2 of arm 2", allow_promotion=True),
        parameter("viscosity_2", Scalar, "Viscosity eta_2 of arm 2", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        check_sign(self, ("equilibrium_modulus",), allow_zero=True)
        check_sign(self, ("modulus_1", "viscosity_1", "modulus_2", "viscosity_2"))

    def forward(self, e: Any, ev1: Any, ev2: Any, *promoted: Any, v: Any = None) -> Any:
        """Stress, the arms' viscous strain rates and (with ``v``) their tangents."""
        e_inf = self._get_param("equilibrium_modulus", promoted)
        mods = [self._get_param(f"modulus_{i}", promoted) for i in _ARMS]
        etas = [self._get_param(f"viscosity_{i}", promoted) for i in _ARMS]
        ees = [e - ev1, e - ev2]
        s = e_inf * e + mods[0] * ees[0] + mods[1] * ees[1]
        rates = [m / eta * ee for m, eta, ee in zip(mods, etas, ees, strict=True)]
        if v is None:
            return s, *rates
        ds: dict[str, Any] = {"strain": lambda d: (e_inf + mods[0] + mods[1]) * d}
        add_action(ds, self.promoted_input("equilibrium_modulus"), lambda d: d * e)
        out: dict[str, Any] = {}
        for i, m, eta, ee, rate in zip(_ARMS, mods, etas, ees, rates, strict=True):
            var = f"viscous_strain_{i}"
            ds[var] = times(-m)
            add_action(ds, self.promoted_input(f"modulus_{i}"), times(ee))
            c = m / eta
            dr: dict[str, Any] = {"strain": times(c), var: times(-c)}
            add_action(dr, self.promoted_input(f"modulus_{i}"), times(ee / eta))
            add_action(dr, self.promoted_input(f"viscosity_{i}"), times(-rate / eta))
            out.update(self.propagate_tangents(v, f"{var}_rate", dr, output=rate)[0])
        out.update(self.propagate_tangents(v, "stress", ds, output=s)[0])
        return s, *rates, out
