r"""``ScalarMultiplication``: :math:`y = A \prod_i f_i(x_i)`, :math:`f_i(x) = x` or :math:`1/x`.

``from`` lists the factors :math:`x_i`; ``reciprocal`` gives one flag per factor (or one flag for
all) selecting :math:`f_i(x) = 1/x`; ``scaling`` :math:`A` (default 1) may be promoted to a
variable. With :math:`P_{\hat\imath} = \prod_{k \ne i} f_k`:
:math:`\partial y/\partial x_i = A f_i' P_{\hat\imath}`,
:math:`\partial^2 y/\partial x_i \partial x_j = A f_i' f_j' \prod_{k \ne i,j} f_k` (:math:`i \ne j`),
:math:`\partial^2 y/\partial x_i^2 = A f_i'' P_{\hat\imath}`, with :math:`f' = 1, f'' = 0` or
:math:`f' = -x^{-2}, f'' = 2 x^{-3}`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, option, output, parameter, var_inputs
from neml2.tensors import Scalar

__all__ = ["ScalarMultiplication", "read_bool_list"]

_TRUE = ("true", "True", "1")
_FALSE = ("false", "False", "0")


def read_bool_list(value: Any, what: str) -> list[bool]:
    """Booleans from HIT tokens (``true``/``false``), Python bools, or a space-separated string."""
    items = value.split() if isinstance(value, str) else list(value)
    out = []
    for tok in items:
        if isinstance(tok, bool):
            out.append(tok)
        elif str(tok) in _TRUE:
            out.append(True)
        elif str(tok) in _FALSE:
            out.append(False)
        else:
            raise ValueError(f"option '{what}': expected true/false flags, got {tok!r}")
    return out


def _product(fs: list[Any], skip: tuple[int, ...]) -> Any:
    """``Π_{k ∉ skip} f_k`` (``None`` for an empty product)."""
    out = None
    for k, f in enumerate(fs):
        if k not in skip:
            out = f if out is None else out * f
    return out


def _times(a: Any, b: Any) -> Any:
    return b if a is None else (a if b is None else a * b)


@register_neml2_object("ScalarMultiplication")
class ScalarMultiplication(Model):
    """Product of Scalar variables (optionally reciprocals) times a scaling factor."""

    SUPPORTS_SECOND_ORDER = True
    from_var: list[str]
    reciprocal: Any
    hit = HitSchema(
        var_inputs("from", Scalar, "Scalar factors x_i", attr="from_var"),
        output("to", Scalar, "The product y"),
        parameter("scaling", Scalar, "Scaling factor A", default="1", allow_promotion=True),
        option("reciprocal", list, "Use 1/x_i for factor i (one flag per factor or one for all)",
               default="False"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        n = len(self.from_var)
        if n == 0:
            raise ValueError("option 'from': at least one variable is required")
        if len(set(self.from_var)) != n:
            raise ValueError(f"option 'from': duplicate variable names in {self.from_var}")
        flags = read_bool_list(self.reciprocal, "reciprocal")
        if len(flags) not in (1, n):
            raise ValueError(
                f"option 'reciprocal': expected 1 or {n} flags (one per 'from' variable), "
                f"got {len(flags)}"
            )
        self._flags = flags * n if len(flags) == 1 else flags

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The product and (with ``v``) its first and second tangents."""
        n = len(self.from_var)
        xs, promoted = args[:n], args[n:]
        A = self._get_param("scaling", promoted)
        fs = [1.0 / x if r else x for x, r in zip(xs, self._flags, strict=True)]
        y = _times(A, _product(fs, ()))
        if v is None:
            return y
        d1 = [-(f * f) if r else None for f, r in zip(fs, self._flags, strict=True)]  # f' (None=1)
        actions: dict[str, Any] = {}
        actions_2: dict[tuple[str, str], Any] = {}
        for i, name in enumerate(self.from_var):
            gi = _times(A, _times(d1[i], _product(fs, (i,))))  # ∂y/∂x_i
            actions[name] = lambda d, g=gi: g * d
            if self._flags[i]:
                f3 = fs[i] * fs[i] * fs[i]
                hii = _times(A, _times(2.0 * f3, _product(fs, (i,))))  # f'' = 2/x^3 = 2 f^3
                actions_2[(name, name)] = lambda a, b, h=hii: h * a * b
            for j in range(n):
                if j != i:
                    hij = _times(A, _times(_times(d1[i], d1[j]), _product(fs, (i, j))))
                    actions_2[(name, self.from_var[j])] = lambda a, b, h=hij: h * a * b
        src = self.promoted_input("scaling")
        if src is not None:
            prod_all = _product(fs, ())
            actions[src] = lambda d: d * prod_all
            for i, name in enumerate(self.from_var):
                gi = _times(d1[i], _product(fs, (i,)))
                gi = Scalar.from_value(1.0, like=y) if gi is None else gi
                actions_2[(src, name)] = lambda a, b, g=gi: g * a * b
                actions_2[(name, src)] = lambda a, b, g=gi: g * a * b
        return y, *self.propagate_tangents(
            v, "to", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )
