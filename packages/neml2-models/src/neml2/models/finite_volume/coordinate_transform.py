r"""``SemiInfiniteCoordinateTransform``: :math:`\hat x = x/(x + s)` maps :math:`[0, \infty)` to
:math:`[0, 1)`.

``coordinate`` :math:`x`, ``shift`` :math:`s` (may be promoted). With :math:`q = x + s`:
:math:`\partial\hat x/\partial x = s/q^2`, :math:`\partial\hat x/\partial s = -x/q^2`,
:math:`\partial^2\hat x/\partial x^2 = -2s/q^3`, :math:`\partial^2\hat x/\partial s^2 = 2x/q^3`,
:math:`\partial^2\hat x/\partial x\,\partial s = (x - s)/q^3`. Pointwise (site-diagonal).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["SemiInfiniteCoordinateTransform"]


@register_neml2_object("SemiInfiniteCoordinateTransform")
class SemiInfiniteCoordinateTransform(Model):
    """Map a semi-infinite coordinate x to x/(x + s) in [0, 1)."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("coordinate", Scalar, "Coordinate x"),
        output("transformed_coordinate", Scalar, "Transformed coordinate x/(x + s)",
               default="state/x_hat"),
        parameter("shift", Scalar, "Shift s", allow_promotion=True),
    )  # fmt: skip

    def forward(self, x: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The transformed coordinate and (with ``v``) its first and second tangents."""
        s = self._get_param("shift", promoted)
        q = x + s
        y = x / q
        if v is None:
            return y
        q2 = q * q
        q3 = q2 * q
        gx, gxx = s / q2, -2.0 * s / q3
        actions: dict[str, Any] = {"coordinate": lambda d: gx * d}
        actions_2: dict[tuple[str, str], Any] = {
            ("coordinate", "coordinate"): lambda a, b: gxx * a * b
        }
        src = self.promoted_input("shift")
        if src is not None:
            gs, gss, gxs = -x / q2, 2.0 * x / q3, (x - s) / q3
            actions[src] = lambda d: gs * d
            actions_2[(src, src)] = lambda a, b: gss * a * b
            actions_2[("coordinate", src)] = lambda a, b: gxs * a * b
            actions_2[(src, "coordinate")] = lambda a, b: gxs * a * b
        return y, *self.propagate_tangents(
            v, "transformed_coordinate", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )
