r"""``FixOrientation``: keep MRP orientations on the principal chart.

:math:`q \mapsto q` where :math:`|q|^2 <` ``threshold``, else the shadow set
:math:`s = -q/|q|^2` (the same rotation). Tangent of the shadow:
:math:`ds = -dq/|q|^2 + 2\,q\,(q\cdot dq)/|q|^4`.

The output is declared with high priority, so in a composition it may share its name with
another model's output (typically the implicit update's orientation) and wins.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import MRP, Scalar, lt, norm_sq, vdot, where

__all__ = ["FixOrientation"]


@register_neml2_object("FixOrientation")
class FixOrientation(Model):
    """Switch an MRP to its shadow set where |q|^2 >= threshold."""

    hit = HitSchema(
        input("input", MRP, "Orientation q (MRP)", attr="input_var"),
        output("output", MRP, "Orientation on the principal chart", attr="output_var",
               priority="high"),
        option("threshold", float, "Switch to the shadow set where |q|^2 >= threshold",
               default=1.0),
    )  # fmt: skip

    threshold: float

    def forward(self, q: Any, *, v: Any = None) -> Any:
        """Fixed orientation and (with ``v``) its tangents."""
        n2 = norm_sq(q)
        keep = lt(n2, self.threshold)
        inv = 1.0 / where(keep, 1.0, n2)
        y = where(keep, q, -(q * inv))
        if v is None:
            return y
        one = keep._like(keep.data.to(n2.data.dtype), Scalar)
        flip = 1.0 - one

        def action(d: Any) -> Any:
            shadow = -(d * inv) + q * (2.0 * inv * inv * vdot(q, d))
            return d * one + shadow * flip

        return y, *self.propagate_tangents(v, "output", {"input": action}, output=y)
