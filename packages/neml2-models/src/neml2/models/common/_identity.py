r"""Generic identity models shared by the typed ``Copy<T>``, ``<T>InputParameter``,
``<T>ConstantParameter`` and ``<T>ParameterToVariable`` families.

* :class:`VariableIdentity`: :math:`y = x` from the input of option ``SOURCE`` to the output of
  option ``TARGET``; :math:`\partial y/\partial x = I`, the second derivative vanishes.
* :class:`ParameterIdentity`: :math:`y = p` for the parameter of option ``SOURCE``; constant
  unless promoted, then the identity on the promoted input (:math:`\partial y/\partial p = I`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from neml2.models.model import Model
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, MillerIndex, Scalar, Vec

__all__ = ["IDENTITY_TENSOR_TYPES", "ParameterIdentity", "VariableIdentity"]

IDENTITY_TENSOR_TYPES: tuple[type, ...] = (Scalar, Vec, MRP, WR2, R2, SR2, SSR4, MillerIndex)
"""Tensor types every identity family is registered for."""


class VariableIdentity(Model):
    """Identity map from input option ``SOURCE`` to output option ``TARGET``."""

    SUPPORTS_SECOND_ORDER = True
    SOURCE: ClassVar[str]
    TARGET: ClassVar[str]

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The input itself and (with ``v``) the unchanged tangents."""
        if v is None:
            return x
        actions = {self.SOURCE: lambda d: d}
        return x, *self.propagate_tangents(v, self.TARGET, actions, output=x, v2=v2, vh=vh)


class ParameterIdentity(Model):
    """Parameter option ``SOURCE`` exposed as output option ``TARGET``."""

    SUPPORTS_SECOND_ORDER = True
    SOURCE: ClassVar[str]
    TARGET: ClassVar[str]

    def forward(self, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The parameter value (identity on a promoted input)."""
        y = self._get_param(self.SOURCE, promoted)
        if v is None:
            return y
        src = self.promoted_input(self.SOURCE)
        actions = {} if src is None else {src: lambda d: d}
        return y, *self.propagate_tangents(v, self.TARGET, actions, output=y, v2=v2, vh=vh)
