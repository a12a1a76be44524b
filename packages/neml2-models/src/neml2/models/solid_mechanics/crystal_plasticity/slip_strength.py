r"""Slip-system strengths.

* ``SingleSlipStrengthMap``: :math:`\hat\tau_i = \bar\tau + \tau_0` for every one of the
  ``nslip`` systems of the crystal geometry (one hardening variable shared by all systems;
  the output gains the slip sub-batch axis).
* ``DislocationObstacleStrengthMap``: :math:`\hat\tau = \tau_0 + \alpha\,\mu\,b\,\sqrt{\rho}`
  (per slip system when the dislocation density :math:`\rho` is).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.crystal_plasticity._geometry import (
    crystal_geometry_option,
    geometry_of,
    slip_output,
)
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["DislocationObstacleStrengthMap", "SingleSlipStrengthMap"]


@register_neml2_object("SingleSlipStrengthMap")
class SingleSlipStrengthMap(Model):
    """Slip strengths tau_bar + constant_strength, the same on every slip system."""

    hit = HitSchema(
        input("slip_hardening", Scalar, "Slip hardening tau_bar (shared by all systems)"),
        output("slip_strengths", Scalar, "Strength of each slip system"),
        parameter("constant_strength", Scalar, "Constant strength tau_0", allow_promotion=True),
        crystal_geometry_option(),
    )

    def __post_init__(self) -> None:
        self.nslip = geometry_of(self).nslip

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The strengths carry the slip systems."""
        return slip_output(self, "slip_strengths", (self.nslip,))

    def _per_system(self, x: Any) -> Any:
        return x.sub_batch.expand_at(self.nslip, x.sub_batch_ndim)

    def forward(self, tau_bar: Any, *promoted: Any, v: Any = None) -> Any:
        """Slip strengths and (with ``v``) their tangents."""
        strength = self._per_system(tau_bar + self._get_param("constant_strength", promoted))
        if v is None:
            return strength
        actions: dict[str, Any] = {"slip_hardening": self._per_system}
        add_action(actions, self.promoted_input("constant_strength"), self._per_system)
        return strength, *self.propagate_tangents(v, "slip_strengths", actions, output=strength)


@register_neml2_object("DislocationObstacleStrengthMap")
class DislocationObstacleStrengthMap(ScalarMap):
    """Slip strengths constant_strength + alpha mu b sqrt(rho)."""

    OUTPUT = "slip_strengths"
    INPUTS = ("dislocation_density",)
    PARAMS = ("constant_strength", "alpha", "mu", "b")
    hit = HitSchema(
        input("dislocation_density", Scalar, "Dislocation density rho"),
        output("slip_strengths", Scalar, "Strength of each slip system"),
        parameter("constant_strength", Scalar, "Constant strength tau_0", allow_promotion=True),
        parameter("alpha", Scalar, "Taylor coefficient alpha", allow_promotion=True),
        parameter("mu", Scalar, "Shear modulus mu", allow_promotion=True),
        parameter("b", Scalar, "Burgers vector length b", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        r""":math:`\tau_0 + \alpha\mu b\sqrt\rho`."""
        rho = x["dislocation_density"]
        return p["constant_strength"] + p["alpha"] * p["mu"] * p["b"] * rho.sqrt()
