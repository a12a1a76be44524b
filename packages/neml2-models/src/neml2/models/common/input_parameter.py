r"""``<T>InputParameter``: identity map :math:`p = x` from input ``variable`` to output ``parameter``.

Used to feed a variable into a parameter slot of another model. Derivatives:
:math:`\partial p/\partial x = I`; the second derivative vanishes.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._identity import IDENTITY_TENSOR_TYPES, VariableIdentity
from neml2.schema import HitSchema, input, output

__all__ = ["INPUT_PARAMETERS", "InputParameter", "make_input_parameter"]


class InputParameter(VariableIdentity):
    """Generic variable-to-parameter identity; concrete types from :func:`make_input_parameter`."""

    SOURCE = "variable"
    TARGET = "parameter"


def make_input_parameter(tensor_type: Any) -> type[InputParameter]:
    """Concrete ``<T>InputParameter`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}InputParameter"
    hit = HitSchema(
        input("variable", tensor_type, "Input variable", attr="variable_name"),
        output("parameter", tensor_type, "Parameter fed by the variable", attr="parameter_name"),
    )
    doc = f"A {tensor_type.__name__} input variable exposed as a parameter: parameter = variable."
    cls = type(name, (InputParameter,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


INPUT_PARAMETERS = {t.__name__: make_input_parameter(t) for t in IDENTITY_TENSOR_TYPES}
