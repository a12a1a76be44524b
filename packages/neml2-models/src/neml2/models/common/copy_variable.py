r"""``Copy<T>``: identity map :math:`y = x` from variable ``from`` to variable ``to``.

Derivatives: :math:`\partial y/\partial x = I`; the second derivative vanishes.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._identity import IDENTITY_TENSOR_TYPES, VariableIdentity
from neml2.schema import HitSchema, input, output

__all__ = ["COPY_VARIABLES", "CopyVariable", "make_copy_variable"]


class CopyVariable(VariableIdentity):
    """Generic identity map; concrete types come from :func:`make_copy_variable`."""

    SOURCE = "from"
    TARGET = "to"


def make_copy_variable(tensor_type: Any) -> type[CopyVariable]:
    """Concrete ``Copy<T>`` class for tensor type ``tensor_type``."""
    name = f"Copy{tensor_type.__name__}"
    hit = HitSchema(
        input("from", tensor_type, "Variable to copy", attr="from_var"),
        output("to", tensor_type, "Copy of the variable", attr="to_var"),
    )
    doc = f"Copy a {tensor_type.__name__} variable: to = from."
    cls = type(name, (CopyVariable,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


COPY_VARIABLES = {t.__name__: make_copy_variable(t) for t in IDENTITY_TENSOR_TYPES}
