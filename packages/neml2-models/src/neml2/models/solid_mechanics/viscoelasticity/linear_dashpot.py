r"""``LinearDashpot``: a Newtonian dashpot, :math:`\dot\varepsilon_v = \sigma / \eta`.

Derivatives: :math:`\partial\dot\varepsilon_v/\partial\sigma = 1/\eta` and, with a promoted
viscosity, :math:`\partial\dot\varepsilon_v/\partial\eta = -\sigma/\eta^2`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["LinearDashpot"]


@register_neml2_object("LinearDashpot")
class LinearDashpot(Model):
    """Linear dashpot: viscous strain rate = stress / viscosity."""

    hit = HitSchema(
        input("stress", SR2, "Stress acting on the dashpot"),
        output("viscous_strain_rate", SR2, "Viscous strain rate"),
        parameter("viscosity", Scalar, "Viscosity eta", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        check_sign(self, ("viscosity",))

    def forward(self, s: Any, *promoted: Any, v: Any = None) -> Any:
        """Viscous strain rate and (with ``v``) its tangents."""
        eta = self._get_param("viscosity", promoted)
        rate = s / eta
        if v is None:
            return rate
        actions: dict[str, Any] = {"stress": lambda d: d / eta}
        add_action(actions, self.promoted_input("viscosity"), lambda d: -(d / eta) * rate)
        return rate, *self.propagate_tangents(v, "viscous_strain_rate", actions, output=rate)
