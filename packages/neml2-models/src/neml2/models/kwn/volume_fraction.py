r"""``PrecipitateVolumeFraction``: :math:`f = \sum_b \frac{4}{3}\pi R_b^3 n_b`.

``number_density`` :math:`n_b` (number of precipitates per unit volume in size bin :math:`b`)
carries the size bins as its last sub-batch axis, which is reduced; ``radius`` :math:`R_b` (the
bin radii) broadcasts against it (a sub-batched ``[Tensors]`` entry or a promoted variable; a
scalar applies to every bin). :math:`\partial f/\partial n_b = \frac43\pi R_b^3`,
:math:`\partial f/\partial R_b = 4\pi R_b^2 n_b`,
:math:`\partial^2 f/\partial R_b\partial n_b = 4\pi R_b^2`,
:math:`\partial^2 f/\partial R_b^2 = 8\pi R_b n_b` (per site): the hyper-dual derivatives of the
per-bin volume, each contribution summed over the bins. Construction refuses a negative
constant radius (v3.1.0 accepts it); a ``number_density`` without a sub-batch axis is an error
(as in v3.1.0).
"""

from __future__ import annotations

import math
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import ScalarMap, hd_pow
from neml2.models.common.batch_reduction import fit_tangent
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, sum as region_sum

__all__ = ["PrecipitateVolumeFraction"]


@register_neml2_object("PrecipitateVolumeFraction")
class PrecipitateVolumeFraction(ScalarMap):
    """Precipitate volume fraction of a size distribution (sum over the size bins)."""

    ACCEPTS_DEFERRED_TANGENTS = False  # the bin sum is not pointwise
    INPUTS = ("number_density",)
    PARAMS = ("radius",)
    hit = HitSchema(
        input("number_density", Scalar, "Number density n_b per size bin (sub-batch axis)",
              default="number_density"),
        output("volume_fraction", Scalar, "Precipitate volume fraction f",
               default="volume_fraction"),
        parameter("radius", Scalar, "Bin radii R_b", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_literal(self, "radius", lambda t: t >= 0, "must be non-negative")

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Volume fraction and (with ``v``) its tangents."""
        if not args[0].sub_batch_ndim:
            raise ValueError(
                f"PrecipitateVolumeFraction ({self._hit_name}): variable 'number_density' has no "
                f"sub-batch (size-bin) axis to sum over"
            )
        x, p = self.hyper_dual_args(args, v, v2, vh)
        vol = 4.0 * math.pi / 3.0 * x["number_density"] * hd_pow(p["radius"], 3.0)
        y = region_sum(vol.v.sub_batch, -1)
        if v is None:
            return y

        def bin_sum(t: Any) -> Any:
            return region_sum(fit_tangent(t, vol.v).sub_batch, -1)

        return y, *self.push_hyper_dual("volume_fraction", vol, y, v, v2, vh, reduce=bin_sum)
