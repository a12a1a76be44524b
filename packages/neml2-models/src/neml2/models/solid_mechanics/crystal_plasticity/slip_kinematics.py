r"""Plastic rates of the lattice from the slip rates, rotated to the sample frame.

With slip rates :math:`\dot\gamma_i` and orientation :math:`R`:

* ``PlasticDeformationRate``: :math:`D^p = R\,(\sum_i \dot\gamma_i M_i)\,R^T` (SR2),
  :math:`M_i = \mathrm{sym}(\hat d_i\otimes\hat n_i)`;
* ``PlasticVorticity``: :math:`W^p = R\,(\sum_i \dot\gamma_i W_i)\,R^T` (WR2),
  :math:`W_i = \mathrm{skew}(\hat d_i\otimes\hat n_i)`;
* ``PlasticSpatialVelocityGradient``: :math:`L^p = R\,(\sum_i \dot\gamma_i \hat d_i\otimes\hat
  n_i)\,R^T` (R2).

Each is linear in :math:`\dot\gamma` (the sum reduces the slip sub-batch axis); the
orientation tangent is :math:`\partial_R(R S R^T)[dR]` with :math:`S` the crystal-frame sum.
"""

from __future__ import annotations

from typing import Any, ClassVar

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics.crystal_plasticity._geometry import (
    check_slip_axis,
    crystal_geometry_option,
    geometry_of,
    store_slip_tensor,
)
from neml2.schema import HitSchema, input, output
from neml2.tensors import R2, SR2, WR2, Scalar, jvp_rotate, rotate, sum as region_sum

__all__ = ["PlasticDeformationRate", "PlasticSpatialVelocityGradient", "PlasticVorticity"]


def slip_sum(slip_rates: Any, tensors: Any) -> Any:
    r""":math:`\sum_i \dot\gamma_i T_i` over the (last) slip sub-batch axis."""
    return region_sum((slip_rates * tensors).sub_batch, -1)


class RotatedSlipSum(Model):
    """``R (Σ_i γ̇_i T_i) Rᵀ`` for the per-system tensor ``T`` named by ``GEOMETRY``."""

    GEOMETRY: ClassVar[str] = ""
    OUTPUT: ClassVar[str] = ""

    def __post_init__(self) -> None:
        store_slip_tensor(self, "slip_tensors", self.GEOMETRY)
        self.nslip = geometry_of(self).nslip

    def forward(self, R: Any, slip_rates: Any, *, v: Any = None) -> Any:
        """The rotated sum and (with ``v``) its tangents."""
        check_slip_axis(self, "slip_rates", slip_rates, self.nslip)
        T = self._get_param("slip_tensors")
        S = slip_sum(slip_rates, T)
        y = rotate(S, R)
        if v is None:
            return y
        actions = {
            "orientation_matrix": lambda d: jvp_rotate(S, R, d),
            "slip_rates": lambda d: rotate(slip_sum(d, T), R),
        }
        return y, *self.propagate_tangents(v, self.OUTPUT, actions, output=y)


def _schema(out: str, out_type: Any, doc: str) -> HitSchema:
    return HitSchema(
        input("orientation_matrix", R2, "Orientation R (crystal to sample)"),
        input("slip_rates", Scalar, "Slip rate of each slip system"),
        output(out, out_type, doc),
        crystal_geometry_option(),
    )


@register_neml2_object("PlasticDeformationRate")
class PlasticDeformationRate(RotatedSlipSum):
    """Plastic deformation rate D^p = R (sum_i gamma_dot_i M_i) R^T."""

    GEOMETRY = "M"
    OUTPUT = "plastic_deformation_rate"
    hit = _schema(OUTPUT, SR2, "Plastic deformation rate D^p")


@register_neml2_object("PlasticVorticity")
class PlasticVorticity(RotatedSlipSum):
    """Plastic vorticity W^p = R (sum_i gamma_dot_i W_i) R^T."""

    GEOMETRY = "W"
    OUTPUT = "plastic_vorticity"
    hit = _schema(OUTPUT, WR2, "Plastic vorticity W^p")


@register_neml2_object("PlasticSpatialVelocityGradient")
class PlasticSpatialVelocityGradient(RotatedSlipSum):
    """Plastic spatial velocity gradient L^p = R (sum_i gamma_dot_i d_i (x) n_i) R^T."""

    GEOMETRY = "A"
    OUTPUT = "plastic_spatial_velocity_gradient"
    hit = _schema(OUTPUT, R2, "Plastic spatial velocity gradient L^p")
