r"""``SlipSystemElasticInteraction``: elastic coupling of the slip systems over a time step.

:math:`A_{ij} = (t - t_n)\,\tilde M_i : \tilde C : \tilde M_j` with the Schmid tensors and the
stiffness both rotated by the orientation :math:`q`. A rotation acts on both sides alike, so
:math:`\tilde M_i : \tilde C : \tilde M_j = M_i : C : M_j` (crystal frame): the coupling is
computed there and does not depend on :math:`q`. Output: a Scalar with the sub-batch
``(nslip, nslip)``. Tangents: :math:`\partial A/\partial t = M:C:M`,
:math:`\partial A/\partial t_n = -M:C:M`, :math:`dA = \Delta t\, M_i : dC : M_j`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.crystal_plasticity._geometry import (
    crystal_geometry_option,
    geometry_of,
    slip_output,
    store_slip_tensor,
)
from neml2.schema import HitSchema, derived_input, input, output, parameter
from neml2.tensors import MRP, SSR4, Scalar, inner

__all__ = ["SlipSystemElasticInteraction"]


@register_neml2_object("SlipSystemElasticInteraction")
class SlipSystemElasticInteraction(Model):
    """Coupling (t - t~1) M_i : C : M_j between slip systems i and j."""

    hit = HitSchema(
        input("orientation", MRP, "Orientation q (the coupling does not depend on it)"),
        input("time", Scalar, "Time", default="t"),
        derived_input("time", Scalar, suffix="~1"),
        output("coupling", Scalar, "Elastic coupling of each pair of slip systems"),
        parameter("elastic_stiffness_tensor", SSR4, "Elastic stiffness C (crystal frame)",
                  allow_promotion=True),
        crystal_geometry_option(),
    )  # fmt: skip

    def __post_init__(self) -> None:
        store_slip_tensor(self, "schmid_tensors", "M")
        self.nslip = geometry_of(self).nslip

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The coupling carries a pair of slip-system axes."""
        return slip_output(self, "coupling", (self.nslip, self.nslip))

    def _pairs(self, C: Any) -> Any:
        """``M_i : C : M_j`` with sub-batch ``(nslip, nslip)``."""
        M = self._get_param("schmid_tensors")
        Mi = M.sub_batch.unsqueeze(-1)  # (nslip, 1)
        CMj = (C @ M).sub_batch.unsqueeze(0)  # (1, nslip)
        return inner(Mi, CMj)

    def forward(self, q: Any, t: Any, t_old: Any, *promoted: Any, v: Any = None) -> Any:
        """Coupling and (with ``v``) its tangents."""
        C = self._get_param("elastic_stiffness_tensor", promoted)
        pairs = self._pairs(C)
        dt = t - t_old
        A = dt * pairs
        if v is None:
            return A
        actions: dict[str, Any] = {
            "time": lambda d: d * pairs,
            "time~1": lambda d: -(d * pairs),
        }
        add_action(actions, self.promoted_input("elastic_stiffness_tensor"),
                   lambda d: dt * self._pairs(d))  # fmt: skip
        return A, *self.propagate_tangents(v, "coupling", actions, output=A)
