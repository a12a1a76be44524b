r"""``<T>InputParameter``: identity map :math:`p = x` from input ``variable`` to output ``parameter``.

Used to feed a variable into a parameter slot of another model. Derivatives:
:math:`\partial p/\partial x = I`; the second derivative vanishes.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, MillerIndex, Scalar, Vec

__all__ = ["INPUT_PARAMETERS", "InputParameter", "make_input_parameter"]


class InputParameter(Model):
    """Generic variable-to-parameter identity; concrete types from :func:`make_input_parameter`."""

    SUPPORTS_SECOND_ORDER = True

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The input itself and (with ``v``) the unchanged tangents."""
        if v is None:
            return x
        actions = {"variable": lambda d: d}
        return x, *self.propagate_tangents(v, "parameter", actions, output=x, v2=v2, vh=vh)


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


INPUT_PARAMETERS = {
    t.__name__: make_input_parameter(t) for t in (Scalar, Vec, MRP, WR2, R2, SR2, SSR4, MillerIndex)
}
