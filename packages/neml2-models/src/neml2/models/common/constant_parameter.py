r"""``<T>ConstantParameter``: a (possibly batched) parameter exposed as a variable, :math:`y = p`.

The output is named after the block unless option ``parameter`` renames it. With
``value = 'x'`` (promotion) the output simply copies input ``x``.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import BLOCK_NAME, HitSchema, output, parameter
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, MillerIndex, Scalar, Vec

__all__ = ["ConstantParameter", "make_constant_parameter"]


class ConstantParameter(Model):
    """Generic constant parameter; concrete types come from :func:`make_constant_parameter`."""

    SUPPORTS_SECOND_ORDER = True

    def forward(self, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The parameter value (identity on a promoted input)."""
        y = self._get_param("value", promoted)
        if v is None:
            return y
        src = self.promoted_input("value")
        actions = {} if src is None else {src: lambda d: d}
        return y, *self.propagate_tangents(v, "parameter", actions, output=y, v2=v2, vh=vh)


def make_constant_parameter(tensor_type: Any) -> type[ConstantParameter]:
    """Concrete ``<T>ConstantParameter`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}ConstantParameter"
    hit = HitSchema(
        output(
            "parameter",
            tensor_type,
            "Output variable (defaults to the block name)",
            default=BLOCK_NAME,
        ),
        parameter("value", tensor_type, "The parameter value", allow_promotion=True),
    )
    doc = f"A {tensor_type.__name__} parameter exposed as an output variable."
    cls = type(name, (ConstantParameter,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


CONSTANT_PARAMETERS = {
    t.__name__: make_constant_parameter(t)
    for t in (Scalar, Vec, MRP, WR2, R2, SR2, SSR4, MillerIndex)
}
