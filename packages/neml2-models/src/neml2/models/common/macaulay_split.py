r"""``MacaulaySplit``: split a Scalar into its positive and negative parts,

.. math::  x_+ = \langle x \rangle = x\,H(x), \qquad x_- = x - x_+

with :math:`H` the Heaviside step (:math:`H(0) = 1/2`). Derivatives:
:math:`\partial x_+/\partial x = H(x)`, :math:`\partial x_-/\partial x = 1 - H(x)`; second
derivatives vanish (away from :math:`x = 0`).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import Scalar, heaviside, macaulay

__all__ = ["MacaulaySplit"]


@register_neml2_object("MacaulaySplit")
class MacaulaySplit(Model):
    """Positive (Macaulay bracket) and negative parts of a Scalar."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("from", Scalar, "Variable to split", attr="from_var"),
        output("to_positive", Scalar, "Positive part <x>", attr="positive_name"),
        output("to_negative", Scalar, "Negative part x - <x>", attr="negative_name"),
    )

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Both parts and (with ``v``) their tangents."""
        pos = macaulay(x)
        neg = x - pos
        if v is None:
            return pos, neg
        h = heaviside(x)
        hc = 1.0 - h
        res_p = self.propagate_tangents(
            v, "to_positive", {"from": lambda d: h * d}, output=pos, v2=v2, vh=vh
        )
        res_n = self.propagate_tangents(
            v, "to_negative", {"from": lambda d: hc * d}, output=neg, v2=v2, vh=vh
        )
        return pos, neg, *({**a, **b} for a, b in zip(res_p, res_n, strict=True))
