r"""``<T>ParameterToVariable``: parameter ``from`` exposed as output variable ``to``, :math:`y = p`.

``from`` is a literal, a ``[Tensors]`` name or (promotion) a variable / ``model[.var]``; when
promoted the model is the identity on that input (:math:`\partial y/\partial p = I`).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._identity import IDENTITY_TENSOR_TYPES, ParameterIdentity
from neml2.schema import HitSchema, output, parameter

__all__ = ["PARAMETERS_TO_VARIABLES", "ParameterToVariable", "make_parameter_to_variable"]


class ParameterToVariable(ParameterIdentity):
    """Generic parameter-to-variable map; concrete types from :func:`make_parameter_to_variable`."""

    SOURCE = "from"
    TARGET = "to"


def make_parameter_to_variable(tensor_type: Any) -> type[ParameterToVariable]:
    """Concrete ``<T>ParameterToVariable`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}ParameterToVariable"
    hit = HitSchema(
        parameter("from", tensor_type, "Parameter to expose", allow_promotion=True),
        output("to", tensor_type, "Output variable", attr="to_var"),
    )
    doc = f"A {tensor_type.__name__} parameter exposed as an output variable: to = from."
    cls = type(name, (ParameterToVariable,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


PARAMETERS_TO_VARIABLES = {t.__name__: make_parameter_to_variable(t) for t in IDENTITY_TENSOR_TYPES}
