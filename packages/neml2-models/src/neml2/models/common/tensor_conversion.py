r"""Linear conversions between second-order tensor types.

* ``R2ToSR2``: :math:`\operatorname{sym}(A) = (A + A^T)/2` in Mandel form;
* ``R2ToWR2``: :math:`\operatorname{skew}(A) = (A - A^T)/2` as an axial vector;
* ``SR2ToR2``: the full 3x3 matrix of a Mandel SR2.

Being linear, each maps input tangents with the same conversion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import R2, SR2, WR2, r2_from_sr2, skew, sym

__all__ = ["TensorConversion", "make_conversion"]


class TensorConversion(Model):
    """Generic linear conversion ``output = convert(input)``."""

    SUPPORTS_SECOND_ORDER = True

    @staticmethod
    def convert(x: Any) -> Any:
        """The conversion (set per concrete class)."""
        raise NotImplementedError

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Converted value and (with ``v``/``v2``) converted tangents (linear: no Hessian)."""
        y = self.convert(x)
        if v is None:
            return y
        return y, *self.propagate_tangents(
            v, "output", {"input": self.convert}, output=y, v2=v2, vh=vh
        )


def make_conversion(
    name: str, src: Any, dst: Any, fn: Callable[[Any], Any], doc: str
) -> type[TensorConversion]:
    """Concrete registered conversion ``name`` from ``src`` to ``dst`` by ``fn``."""
    hit = HitSchema(
        input("input", src, f"{src.__name__} to convert"),
        output("output", dst, f"Converted {dst.__name__}"),
    )
    body = {"hit": hit, "convert": staticmethod(fn), "__doc__": doc, "__module__": __name__}
    return register_neml2_object(name)(type(name, (TensorConversion,), body))


R2ToSR2 = make_conversion("R2ToSR2", R2, SR2, sym, "Symmetric part of an R2 as an SR2.")
R2ToWR2 = make_conversion("R2ToWR2", R2, WR2, skew, "Skew part of an R2 as a WR2.")
SR2ToR2 = make_conversion("SR2ToR2", SR2, R2, r2_from_sr2, "Full R2 of an SR2.")
