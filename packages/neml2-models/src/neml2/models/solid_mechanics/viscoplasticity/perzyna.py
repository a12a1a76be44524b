r"""``PerzynaPlasticFlowRate``: :math:`\dot\gamma = (|f|/\eta)^n\,H(f)`.

:math:`f` is the yield function, :math:`\eta` the reference stress, :math:`n` the exponent and
:math:`H` the Heaviside function (:math:`H(0) = 1/2`, where the rate is zero anyway). For
:math:`f > 0` the rate is :math:`\exp(n \ln(f/\eta))`; for :math:`f \le 0` it and all its
derivatives vanish. First and second derivatives (including w.r.t. promoted :math:`\eta, n`)
follow from hyper-dual arithmetic on a masked, log-safe copy of :math:`f`.
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._checks import require_positive
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_exp, hd_log
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, gt, where

__all__ = ["PerzynaPlasticFlowRate"]


@register_neml2_object("PerzynaPlasticFlowRate")
class PerzynaPlasticFlowRate(ScalarMap):
    """Perzyna power-law viscoplastic flow rate."""

    OUTPUT = "flow_rate"
    INPUTS = ("yield_function",)
    PARAMS = ("reference_stress", "exponent")
    hit = HitSchema(
        input("yield_function", Scalar, "Yield function"),
        output("flow_rate", Scalar, "Flow rate"),
        parameter("reference_stress", Scalar, "Reference stress eta", allow_promotion=True),
        parameter("exponent", Scalar, "Exponent n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "reference_stress")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`H(f)\\,(|f|/\\eta)^n`."""
        f = x["yield_function"]
        pos = gt(f.v, 0.0)
        mask = pos._like(pos.data.to(f.v.data.dtype))
        safe = HyperDual(where(pos, f.v, 1.0), f.g, f.h)
        y: HyperDual = hd_exp(p["exponent"] * hd_log(safe / p["reference_stress"])) * mask
        return y
