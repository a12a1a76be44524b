r"""``<T>ConstantParameter``: a (possibly batched) parameter exposed as a variable, :math:`y = p`.

The output is named after the block unless option ``parameter`` renames it. With
``value = 'x'`` (promotion) the output simply copies input ``x``.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._identity import IDENTITY_TENSOR_TYPES, ParameterIdentity
from neml2.schema import BLOCK_NAME, HitSchema, output, parameter

__all__ = ["ConstantParameter", "make_constant_parameter"]


class ConstantParameter(ParameterIdentity):
    """Generic constant parameter; concrete types come from :func:`make_constant_parameter`."""

    SOURCE = "value"
    TARGET = "parameter"


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


CONSTANT_PARAMETERS = {t.__name__: make_constant_parameter(t) for t in IDENTITY_TENSOR_TYPES}
