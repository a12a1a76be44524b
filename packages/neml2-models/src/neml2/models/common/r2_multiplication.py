r"""``R2Multiplication``: :math:`C = \operatorname{op}_A(A)\, \operatorname{op}_B(B)`.

:math:`\operatorname{op}(X)` optionally inverts (``invert_X``) and then optionally transposes
(``transpose_X``) :math:`X`. Tangents: :math:`\mathrm{d}C = \mathrm{d}\operatorname{op}_A\,
\operatorname{op}_B + \operatorname{op}_A\, \mathrm{d}\operatorname{op}_B` with
:math:`\mathrm{d}(X^{-1}) = -X^{-1}\, \mathrm{d}X\, X^{-1}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import R2, inv, transpose

__all__ = ["R2Multiplication", "as_bool"]


def as_bool(value: Any, what: str) -> bool:
    """A boolean option value (``True``/``False`` or the strings ``true``/``false``)."""
    if isinstance(value, bool):
        return value
    if str(value) in ("true", "True"):
        return True
    if str(value) in ("false", "False"):
        return False
    raise ValueError(f"option '{what}': expected true or false, got {value!r}")


def _op(x: Any, invert: bool, trans: bool) -> tuple[Any, Callable[[Any], Any]]:
    """``op(x)`` and its (linear) tangent map."""
    if invert:
        xi = inv(x)
        y = xi
        d: Callable[[Any], Any] = lambda dx: -(xi @ dx @ xi)  # noqa: E731
    else:
        y = x
        d = lambda dx: dx  # noqa: E731
    if trans:
        return transpose(y), lambda dx: transpose(d(dx))
    return y, d


@register_neml2_object("R2Multiplication")
class R2Multiplication(Model):
    """Product of two R2, each optionally inverted and/or transposed."""

    invert_A: bool
    invert_B: bool
    transpose_A: bool
    transpose_B: bool

    hit = HitSchema(
        input("A", R2, "First factor A"),
        input("B", R2, "Second factor B"),
        output("to", R2, "The product C", attr="to_var"),
        option("invert_A", bool, "Use the inverse of A", default="False"),
        option("invert_B", bool, "Use the inverse of B", default="False"),
        option("transpose_A", bool, "Transpose op(A)", default="False"),
        option("transpose_B", bool, "Transpose op(B)", default="False"),
    )

    def __post_init__(self) -> None:
        for key in ("invert_A", "invert_B", "transpose_A", "transpose_B"):
            setattr(self, key, as_bool(getattr(self, key), key))

    def forward(self, A: Any, B: Any, *, v: Any = None) -> Any:
        """The product and (with ``v``) its tangents."""
        a, da = _op(A, self.invert_A, self.transpose_A)
        b, db = _op(B, self.invert_B, self.transpose_B)
        c = a @ b
        if v is None:
            return c
        actions = {"A": lambda d: da(d) @ b, "B": lambda d: a @ db(d)}
        return c, *self.propagate_tangents(v, "to", actions, output=c)
