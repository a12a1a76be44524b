"""Selection and comparison: ``where``, ``gt/lt/ge/le``, ``equal``, ``allclose``.

Operands are aligned exactly like arithmetic. Comparisons return the first
operand's wrapper type holding a **bool** tensor; a Python number becomes a Scalar.
"""

from __future__ import annotations

from typing import Any, TypeVar

import torch

from neml2.tensors._align import nary
from neml2.tensors._scalar import Scalar
from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=TensorWrapper)


def _lift(x: Any, like: TensorWrapper, fn: str) -> TensorWrapper:
    if isinstance(x, TensorWrapper):
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Scalar._wrap(torch.tensor(x, dtype=like.dtype, device=like.device))
    raise TypeError(f"{fn}: expected a neml2 tensor or a Python number, got {type(x).__name__}")


def where(condition: TensorWrapper, a: Any, b: Any) -> Any:
    """Elementwise ``a if condition else b`` (condition: a bool wrapper, e.g. from ``gt``)."""
    if not isinstance(condition, TensorWrapper):
        raise TypeError(f"where: condition must be a neml2 tensor, got {type(condition).__name__}")
    if condition.dtype != torch.bool:
        raise TypeError(f"where: condition must hold bool values, got {condition.dtype}")
    ref = a if isinstance(a, TensorWrapper) else b
    if not isinstance(ref, TensorWrapper):
        raise TypeError("where: at least one of a, b must be a neml2 tensor")
    wa, wb = _lift(a, ref, "where"), _lift(b, ref, "where")
    cls = type(wa) if wa.BASE_NDIM >= wb.BASE_NDIM else type(wb)
    if type(wa) is not type(wb) and Scalar not in (type(wa), type(wb)):
        raise TypeError(f"where: incompatible branches {type(wa).__name__} and {type(wb).__name__}")
    return nary(cls, torch.where, (condition, wa, wb))


def _compare(op: Any, name: str) -> Any:
    def cmp(a: X, b: Any) -> X:
        if not isinstance(a, TensorWrapper):
            raise TypeError(f"{name}: first operand must be a neml2 tensor, got {type(a).__name__}")
        return nary(type(a), op, (a, _lift(b, a, name)))

    cmp.__name__ = cmp.__qualname__ = name
    cmp.__doc__ = f"Elementwise ``{name}`` as a bool tensor of the first operand's type."
    return cmp


gt = _compare(torch.gt, "gt")
lt = _compare(torch.lt, "lt")
ge = _compare(torch.ge, "ge")
le = _compare(torch.le, "le")


def _raw(x: Any) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x
    data = getattr(x, "data", None)
    if isinstance(data, torch.Tensor):
        return data
    raise TypeError(f"expected a neml2 tensor or torch.Tensor, got {type(x).__name__}")


def equal(a: Any, b: Any) -> bool:
    """True if both have the same wrapper type (when wrapped), shape and values."""
    if isinstance(a, TensorWrapper) and isinstance(b, TensorWrapper) and type(a) is not type(b):
        return False
    return bool(torch.equal(_raw(a), _raw(b)))


def allclose(
    a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> bool:
    """``torch.allclose`` on storage (broadcasting); False for different wrapper types."""
    if isinstance(a, TensorWrapper) and isinstance(b, TensorWrapper) and type(a) is not type(b):
        return False
    return bool(torch.allclose(_raw(a), _raw(b), rtol=rtol, atol=atol, equal_nan=equal_nan))
