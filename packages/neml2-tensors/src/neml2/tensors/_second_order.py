"""Second-order tensors: general `R2` (row-major 3x3) and symmetric `SR2` (Mandel).

Mandel packing of a symmetric ``A``: ``[A00, A11, A22, √2 A12, √2 A02, √2 A01]``,
so ``inner`` is the plain 6-dot (= ``A : B``) and ``norm`` the Frobenius norm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, overload

import torch

from neml2.tensors import _kernels as K
from neml2.tensors._align import binary
from neml2.tensors._primitive import Device, PrimitiveTensor, _infer
from neml2.tensors._vectors import Vec
from neml2.tensors._wrapper import _to_tensor


@dataclass(frozen=True, eq=False, init=False, repr=False)
class R2(PrimitiveTensor):
    """General second-order tensor, base shape (3, 3)."""

    BASE_NDIM: ClassVar[int] = 2
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (3, 3)

    @classmethod
    def identity(cls, dtype: torch.dtype | None = None, device: Device = None) -> R2:
        """δ_ij."""
        return cls._wrap(
            torch.eye(3, dtype=torch.float64 if dtype is None else dtype, device=device)
        )

    @overload
    def __matmul__(self, other: R2) -> R2: ...
    @overload
    def __matmul__(self, other: Vec) -> Vec: ...
    def __matmul__(self, other: Any) -> Any:
        """``R2 @ R2`` (matrix product) or ``R2 @ Vec`` (matrix-vector product)."""
        if isinstance(other, R2):
            return binary(self, other, torch.matmul, R2, True, pad_base=False)
        if isinstance(other, Vec):
            return binary(self, other, K.matvec, Vec, True, pad_base=False)
        return NotImplemented

    @property
    def T(self) -> R2:
        """Transpose ``A_ji``."""
        return self._like(self.data.mT)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class SR2(PrimitiveTensor):
    """Symmetric second-order tensor in Mandel notation, base shape (6,)."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (6,)

    @classmethod
    def fill(cls, *components: Any, dtype: torch.dtype | None = None, device: Device = None) -> SR2:
        """Physical components in, Mandel out.

        ``fill(a)`` → ``a I``; ``fill(a, b, c)`` → ``diag(a, b, c)``;
        ``fill(s11, s22, s33, s23, s13, s12)`` → ``[s11, s22, s33, √2 s23, √2 s13, √2 s12]``.
        """
        n = len(components)
        if n not in (1, 3, 6):
            raise ValueError(f"SR2.fill expects 1, 3 or 6 components, got {n}")
        t = _to_tensor(list(components), dtype if dtype is not None else _infer(components), device)
        if n == 1:
            z = torch.zeros_like(t)
            data = torch.cat([t, t, t, z, z, z], dim=-1)
        elif n == 3:
            data = torch.cat([t, torch.zeros_like(t)], dim=-1)
        else:
            scale = torch.tensor(
                [1.0, 1.0, 1.0, K.SQRT2, K.SQRT2, K.SQRT2], dtype=t.dtype, device=t.device
            )
            data = t * scale
        return cls._wrap(data)

    @classmethod
    def identity(cls, dtype: torch.dtype | None = None, device: Device = None) -> SR2:
        """δ_ij in Mandel form ``[1, 1, 1, 0, 0, 0]``."""
        return cls._const([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], dtype, device)
