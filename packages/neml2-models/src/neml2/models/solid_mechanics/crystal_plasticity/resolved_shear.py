r"""``ResolvedShear``: resolved shear stress on every slip system.

:math:`\tau_i = (R M_i R^T) : \sigma = M_i : (R^T \sigma R)` with :math:`M_i` the crystal-frame
Schmid tensors and :math:`R` the orientation (crystal → sample). The stress is rotated once
into the crystal frame; the output carries a new sub-batch axis of the ``nslip`` systems.
Tangents: :math:`d\tau_i = M_i : (R^T d\sigma R) + M_i : \partial_R(R^T\sigma R)[dR]`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics.crystal_plasticity._geometry import (
    crystal_geometry_option,
    geometry_of,
    slip_output,
    store_slip_tensor,
)
from neml2.schema import HitSchema, input, output
from neml2.tensors import R2, SR2, Scalar, inner, jvp_rotate, rotate, transpose

__all__ = ["ResolvedShear"]


@register_neml2_object("ResolvedShear")
class ResolvedShear(Model):
    """Resolved shear stresses tau_i = M_i : (R^T sigma R) of the slip systems."""

    hit = HitSchema(
        input("stress", SR2, "Cauchy stress sigma (sample frame)"),
        input("orientation_matrix", R2, "Orientation R (crystal to sample)"),
        output("resolved_shears", Scalar, "Resolved shear stress of each slip system"),
        crystal_geometry_option(),
    )

    def __post_init__(self) -> None:
        store_slip_tensor(self, "schmid_tensors", "M")
        self.nslip = geometry_of(self).nslip

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """The resolved shears carry the slip systems."""
        return slip_output(self, "resolved_shears", (self.nslip,))

    def forward(self, stress: Any, R: Any, *, v: Any = None) -> Any:
        """Resolved shears and (with ``v``) their tangents."""
        M = self._get_param("schmid_tensors")
        Rt = transpose(R)
        tau = inner(M, rotate(stress, Rt))
        if v is None:
            return tau
        actions = {
            "stress": lambda d: inner(M, rotate(d, Rt)),
            "orientation_matrix": lambda d: inner(M, jvp_rotate(stress, Rt, transpose(d))),
        }
        return tau, *self.propagate_tangents(v, "resolved_shears", actions, output=tau)
