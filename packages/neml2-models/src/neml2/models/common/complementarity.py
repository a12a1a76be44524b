r"""Complementarity residuals of :math:`a \lessgtr 0,\ b \lessgtr 0,\ ab = 0`.

Signs: :math:`s = -1` for ``LE`` (:math:`x \le 0`), :math:`s = +1` for ``GE`` (defaults: ``a``
LE, ``b`` GE).

* ``FBComplementarity`` (Fischer–Burmeister):
  :math:`r = s_a a + s_b b - \sqrt{a^2 + b^2 + \epsilon}`,
  :math:`\partial r/\partial a = s_a - a/q`, :math:`\partial r/\partial b = s_b - b/q`
  (:math:`q = \sqrt{\cdot}`), :math:`\partial^2 r/\partial a^2 = -(b^2 + \epsilon)/q^3`,
  :math:`\partial^2 r/\partial b^2 = -(a^2 + \epsilon)/q^3`,
  :math:`\partial^2 r/\partial a \partial b = ab/q^3`.
* ``MinMapComplementarity``: :math:`r = \min(s_a a, s_b b)`; the derivative follows the active
  branch (``a`` on ties); it is piecewise linear, so its second derivative is zero.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import Scalar, le, sqrt, where

__all__ = ["Complementarity", "FBComplementarity", "MinMapComplementarity"]

_SIGNS = {"LE": -1.0, "GE": 1.0}


class Complementarity(Model):
    """Common options and validation of the complementarity residuals."""

    SUPPORTS_SECOND_ORDER = True

    a_inequality: str
    b_inequality: str
    hit = HitSchema(
        input("a", Scalar, "First variable a"),
        input("b", Scalar, "Second variable b"),
        output("complementarity", Scalar, "Complementarity residual r"),
        option("a_inequality", str, "Inequality on a: LE (a <= 0) or GE (a >= 0)", default="LE"),
        option("b_inequality", str, "Inequality on b: LE (b <= 0) or GE (b >= 0)", default="GE"),
    )

    def __post_init__(self) -> None:
        for key in ("a_inequality", "b_inequality"):
            val = getattr(self, key)
            if val not in _SIGNS:
                raise ValueError(f"option '{key}': expected LE or GE, got {val!r}")
        self._sa = _SIGNS[self.a_inequality]
        self._sb = _SIGNS[self.b_inequality]


@register_neml2_object("FBComplementarity")
class FBComplementarity(Complementarity):
    """Fischer-Burmeister complementarity residual s_a a + s_b b - sqrt(a^2 + b^2 + eps)."""

    def forward(self, a: Any, b: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Residual and (with ``v``) its first and second tangents."""
        eps = torch.finfo(a.dtype).eps
        q = sqrt(a * a + b * b + eps)
        r = self._sa * a + self._sb * b - q
        if v is None:
            return r
        ga, gb = self._sa - a / q, self._sb - b / q
        actions = {"a": lambda d: ga * d, "b": lambda d: gb * d}
        q3 = q * q * q
        haa, hbb, hab = -(b * b + eps) / q3, -(a * a + eps) / q3, a * b / q3
        actions_2 = {
            ("a", "a"): lambda x, y: haa * x * y,
            ("b", "b"): lambda x, y: hbb * x * y,
            ("a", "b"): lambda x, y: hab * x * y,
            ("b", "a"): lambda x, y: hab * x * y,
        }
        return r, *self.propagate_tangents(
            v, "complementarity", actions, output=r, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("MinMapComplementarity")
class MinMapComplementarity(Complementarity):
    """Min-map complementarity residual min(s_a a, s_b b)."""

    def forward(self, a: Any, b: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Residual and (with ``v``) its tangents (second order: only ``v2`` passes through)."""
        xa, xb = self._sa * a, self._sb * b
        pick_a = le(xa, xb)
        r = where(pick_a, xa, xb)
        if v is None:
            return r
        zero = Scalar.from_value(0.0, like=r)
        ga = where(pick_a, Scalar.from_value(self._sa, like=r), zero)
        gb = where(pick_a, zero, Scalar.from_value(self._sb, like=r))
        actions = {"a": lambda d: ga * d, "b": lambda d: gb * d}
        return r, *self.propagate_tangents(v, "complementarity", actions, output=r, v2=v2, vh=vh)
