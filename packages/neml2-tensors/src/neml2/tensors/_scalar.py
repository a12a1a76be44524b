"""`Scalar`: one number per batch entry (base shape ``()``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, overload

import torch

from neml2.tensors._primitive import Device, PrimitiveTensor
from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=PrimitiveTensor)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class Scalar(PrimitiveTensor):
    """Scalar field; Python numbers/lists become float64."""

    BASE_NDIM: ClassVar[int] = 0
    BASE_SHAPE: ClassVar[tuple[int, ...]] = ()

    # Scalar (op) X has X's type
    @overload  # type: ignore[override]
    def __mul__(self, other: X) -> X: ...
    @overload
    def __mul__(self, other: float) -> Scalar: ...
    def __mul__(self, other: Any) -> Any:
        return self._op(other, "*")

    @overload  # type: ignore[override]
    def __add__(self, other: X) -> X: ...
    @overload
    def __add__(self, other: float) -> Scalar: ...
    def __add__(self, other: Any) -> Any:
        return self._op(other, "+")

    @overload  # type: ignore[override]
    def __sub__(self, other: X) -> X: ...
    @overload
    def __sub__(self, other: float) -> Scalar: ...
    def __sub__(self, other: Any) -> Any:
        return self._op(other, "-")

    @classmethod
    def identity(cls, dtype: torch.dtype | None = None, device: Device = None) -> Scalar:
        """The multiplicative identity 1."""
        return cls.ones(dtype=dtype, device=device)

    @classmethod
    def arange(
        cls,
        *args: float,
        dtype: torch.dtype | None = None,
        device: Device = None,
    ) -> Scalar:
        """``torch.arange(*args)`` as a Scalar with one dynamic batch axis (float64 by default)."""
        return cls._wrap(
            torch.arange(*args, dtype=torch.float64 if dtype is None else dtype, device=device)
        )

    @classmethod
    def from_value(cls, x: Any, like: TensorWrapper | torch.Tensor) -> Scalar:
        """A Scalar holding ``x`` with the dtype and device of ``like``."""
        ref = like.data if isinstance(like, TensorWrapper) else like
        if isinstance(x, TensorWrapper):
            x = x.data
        if isinstance(x, torch.Tensor):
            return cls._wrap(x.to(dtype=ref.dtype, device=ref.device))
        return cls._wrap(torch.tensor(x, dtype=ref.dtype, device=ref.device))
