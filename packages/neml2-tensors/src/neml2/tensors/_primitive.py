"""`PrimitiveTensor`: arithmetic operators and factories shared by all fixed-base types.

Rules (``docs/design/tensors.md``, "Alignment and broadcasting"): ``a ± b`` needs the same class
or a ``Scalar`` (Python numbers only on ``Scalar``); ``a * b`` and ``a / b`` accept the same
class (component-wise), a ``Scalar`` or a Python number. ``Scalar * X`` has ``X``'s type.
Factories default to ``torch.float64`` unless ``dtype=`` is given (a deliberate
deviation from v3, which used torch's global default for non-Scalar types).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from neml2.tensors._align import binary
from neml2.tensors._wrapper import TensorWrapper, _to_tensor

P = TypeVar("P", bound="PrimitiveTensor")

Number = int | float
Device = torch.device | str | None

_OPS: dict[str, Callable[[Any, Any], torch.Tensor]] = {
    "+": torch.add,
    "-": torch.sub,
    "*": torch.mul,
    "/": torch.div,
}


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _shape_args(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
        return tuple(shape[0])
    return tuple(shape)


def _dtype(dtype: torch.dtype | None) -> torch.dtype:
    return torch.float64 if dtype is None else dtype


class PrimitiveTensor(TensorWrapper):
    """Abstract fixed-base wrapper with generic arithmetic and factories."""

    # ------------------------------------------------------------ arithmetic
    def _result(self, other: TensorWrapper, op: str, reflected: bool) -> type[TensorWrapper]:
        a, b = (other, self) if reflected else (self, other)
        ta, tb = type(a), type(b)
        if ta is tb:
            return ta
        if tb.BASE_NDIM == 0 and tb.__name__ == "Scalar":
            return ta
        if ta.BASE_NDIM == 0 and ta.__name__ == "Scalar" and op in ("*", "+", "-"):
            return tb
        raise TypeError(f"unsupported operand types for {op}: {ta.__name__} and {tb.__name__}")

    def _op(self, other: object, op: str, reflected: bool = False) -> Any:
        fn = _OPS[op]
        if isinstance(other, TensorWrapper):
            cls = self._result(other, op, reflected)
            a, b = (other, self) if reflected else (self, other)
            return binary(a, b, fn, cls, op in ("*", "/"))
        if _is_number(other):
            if op in ("+", "-") and self.BASE_NDIM != 0:
                raise TypeError(
                    f"cannot {'add' if op == '+' else 'subtract'} a Python number and a "
                    f"{type(self).__name__}; only Scalar accepts literals in +/-"
                )
            if reflected and op == "/" and self.BASE_NDIM != 0:
                raise TypeError(f"cannot divide a Python number by a {type(self).__name__}")
            d = self.data
            return self._like(fn(other, d) if reflected else fn(d, other))
        if isinstance(other, torch.Tensor):
            raise TypeError(
                f"cannot combine {type(self).__name__} with a raw torch.Tensor in {op}; wrap it first"
            )
        return NotImplemented

    def __add__(self: P, other: object) -> P:
        return self._op(other, "+")  # type: ignore[no-any-return]

    def __radd__(self: P, other: object) -> P:
        return self._op(other, "+", True)  # type: ignore[no-any-return]

    def __sub__(self: P, other: object) -> P:
        return self._op(other, "-")  # type: ignore[no-any-return]

    def __rsub__(self: P, other: object) -> P:
        return self._op(other, "-", True)  # type: ignore[no-any-return]

    def __mul__(self: P, other: object) -> P:
        return self._op(other, "*")  # type: ignore[no-any-return]

    def __rmul__(self: P, other: object) -> P:
        return self._op(other, "*", True)  # type: ignore[no-any-return]

    def __truediv__(self: P, other: object) -> P:
        return self._op(other, "/")  # type: ignore[no-any-return]

    def __rtruediv__(self: P, other: object) -> P:
        return self._op(other, "/", True)  # type: ignore[no-any-return]

    def __neg__(self: P) -> P:
        return self._like(torch.neg(self.data))

    def __pos__(self: P) -> P:
        return self

    def __abs__(self: P) -> P:
        return self._like(torch.abs(self.data))

    def __pow__(self: P, n: object) -> P:
        if isinstance(n, (int, float)) and not isinstance(n, bool):
            return self._like(torch.pow(self.data, n))
        if isinstance(n, TensorWrapper) and n.BASE_NDIM == 0:
            return binary(self, n, torch.pow, type(self), True)
        return NotImplemented

    def __rpow__(self: P, base: object) -> P:
        if isinstance(base, (int, float)) and not isinstance(base, bool) and self.BASE_NDIM == 0:
            return self._like(torch.pow(base, self.data))
        return NotImplemented

    # ------------------------------------------------------------- factories
    @classmethod
    def _from_shape(
        cls: type[P],
        maker: Callable[..., torch.Tensor],
        shape: tuple[Any, ...],
        dtype: torch.dtype | None,
        device: Device,
        **kw: Any,
    ) -> P:
        full = _shape_args(shape) + cls.BASE_SHAPE
        return cls._wrap(maker(full, dtype=_dtype(dtype), device=device, **kw))

    @classmethod
    def zeros(
        cls: type[P], *shape: Any, dtype: torch.dtype | None = None, device: Device = None
    ) -> P:
        """Zeros of batch shape ``shape`` (float64 by default)."""
        return cls._from_shape(torch.zeros, shape, dtype, device)

    @classmethod
    def ones(
        cls: type[P], *shape: Any, dtype: torch.dtype | None = None, device: Device = None
    ) -> P:
        """Ones of batch shape ``shape`` (float64 by default)."""
        return cls._from_shape(torch.ones, shape, dtype, device)

    @classmethod
    def empty(
        cls: type[P], *shape: Any, dtype: torch.dtype | None = None, device: Device = None
    ) -> P:
        """Uninitialized storage of batch shape ``shape`` (float64 by default)."""
        return cls._from_shape(torch.empty, shape, dtype, device)

    @classmethod
    def full(
        cls: type[P],
        *args: Any,
        fill_value: Number | None = None,
        dtype: torch.dtype | None = None,
        device: Device = None,
    ) -> P:
        """Every storage entry equal to the fill value.

        ``full(*B, fill_value=v)`` or ``full(*B, v)`` (the last positional is the value), so
        ``Scalar.full(1.0)`` is an unbatched 1.
        """
        if fill_value is None:
            if not args:
                raise TypeError(f"{cls.__name__}.full: missing fill value")
            *shape, value = args
        else:
            shape, value = list(args), fill_value
        full = _shape_args(tuple(shape)) + cls.BASE_SHAPE
        return cls._wrap(torch.full(full, value, dtype=_dtype(dtype), device=device))

    @classmethod
    def zeros_like(
        cls: type[P], template: TensorWrapper, sub_batch_shape: tuple[int, ...] | None = None
    ) -> P:
        """Zeros at ``template``'s K + dynamic batch (+ ``sub_batch_shape`` or its sub shape)."""
        sub = template.sub_batch_shape if sub_batch_shape is None else tuple(sub_batch_shape)
        shape = template.k_shape + template.dynamic_batch_shape + sub + cls.BASE_SHAPE
        data = torch.zeros(shape, dtype=template.dtype, device=template.device)
        pairs = tuple(p if p is not None and p < len(sub) else None for p in template.k_pairing)
        kstate = tuple(
            "full" if p is None and q is not None else s
            for s, p, q in zip(template.k_state, pairs, template.k_pairing, strict=True)
        )
        return cls._wrap(data, len(sub), (), (), template.k_ndim, kstate, pairs)

    @classmethod
    def fill(
        cls: type[P], *components: Any, dtype: torch.dtype | None = None, device: Device = None
    ) -> P:
        """Build from exactly ``prod(BASE_SHAPE)`` components in row-major order."""
        n = math.prod(cls.BASE_SHAPE)
        if len(components) != n:
            raise ValueError(f"{cls.__name__}.fill expects {n} components, got {len(components)}")
        data = _to_tensor(
            list(components), dtype if dtype is not None else _infer(components), device
        )
        return cls._wrap(data.reshape(data.shape[:-1] + cls.BASE_SHAPE))

    @classmethod
    def identity(cls: type[P], dtype: torch.dtype | None = None, device: Device = None) -> P:
        """The type's identity element (zeros unless overridden)."""
        return cls.zeros(dtype=dtype, device=device)

    @classmethod
    def _const(cls: type[P], values: Any, dtype: torch.dtype | None, device: Device) -> P:
        return cls._wrap(torch.tensor(values, dtype=_dtype(dtype), device=device))


def _infer(components: tuple[Any, ...]) -> torch.dtype | None:
    """dtype of the first tensor-like component (None: float64 for Python numbers)."""
    for c in components:
        if isinstance(c, (torch.Tensor, TensorWrapper)):
            return c.dtype
    return torch.float64
