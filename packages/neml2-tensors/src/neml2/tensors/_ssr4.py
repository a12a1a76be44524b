"""`SSR4`: minor-symmetric fourth-order tensor as a 6x6 Mandel matrix.

``C : ε`` is the mat-vec ``C @ ε`` and ``C : D`` the 6x6 product. Projectors
(``I`` = identity 3x3, ``δ`` = Kronecker): ``identity() = I⊗I``, ``identity_sym() = 1₆``,
``identity_vol() = I⊗I/3``, ``identity_dev() = 1₆ − I⊗I/3`` and the cubic basis
``identity_C1/C2/C3`` (diagonal / off-diagonal of the normal block, shear block).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, overload

import torch

from neml2.tensors import _kernels as K
from neml2.tensors._align import binary
from neml2.tensors._primitive import Device, PrimitiveTensor
from neml2.tensors._scalar import Scalar
from neml2.tensors._second_order import SR2
from neml2.tensors._wrapper import TensorWrapper

ScalarLike = Scalar | float | int


def _block(
    entries: list[tuple[int, int, float]], dtype: torch.dtype | None, device: Device
) -> torch.Tensor:
    m = torch.zeros(6, 6, dtype=torch.float64 if dtype is None else dtype, device=device)
    for i, j, v in entries:
        m[i, j] = v
    return m


def _as_scalar(x: ScalarLike, dtype: torch.dtype | None, device: Device) -> Scalar:
    if isinstance(x, Scalar):
        return x if dtype is None and device is None else x.to(dtype=dtype, device=device)
    if isinstance(x, TensorWrapper):
        raise TypeError(f"expected a Scalar or a number, got {type(x).__name__}")
    return Scalar(x, dtype=dtype, device=device)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class SSR4(PrimitiveTensor):
    """Minor-symmetric fourth-order tensor, base shape (6, 6) (Mandel × Mandel)."""

    BASE_NDIM: ClassVar[int] = 2
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (6, 6)

    @classmethod
    def identity(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """``I⊗I``: ones in the top-left 3x3 block (maps A → tr(A) I)."""
        return cls._wrap(_block([(i, j, 1.0) for i in range(3) for j in range(3)], dtype, device))

    @classmethod
    def identity_sym(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Symmetric identity (A → A): eye(6)."""
        return cls._wrap(
            torch.eye(6, dtype=torch.float64 if dtype is None else dtype, device=device)
        )

    @classmethod
    def identity_vol(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Volumetric projector ``I⊗I / 3``."""
        return cls._wrap(cls.identity(dtype, device).data / 3.0)

    @classmethod
    def identity_dev(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Deviatoric projector ``1₆ − I⊗I / 3``."""
        return cls._wrap(
            cls.identity_sym(dtype, device).data - cls.identity_vol(dtype, device).data
        )

    @classmethod
    def identity_C1(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Cubic basis: eye on the top-left 3x3 block."""
        return cls._wrap(_block([(i, i, 1.0) for i in range(3)], dtype, device))

    @classmethod
    def identity_C2(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Cubic basis: ones on the off-diagonals of the top-left 3x3 block."""
        return cls._wrap(
            _block([(i, j, 1.0) for i in range(3) for j in range(3) if i != j], dtype, device)
        )

    @classmethod
    def identity_C3(cls, dtype: torch.dtype | None = None, device: Device = None) -> SSR4:
        """Cubic basis: eye on the bottom-right (shear) 3x3 block."""
        return cls._wrap(_block([(i, i, 1.0) for i in range(3, 6)], dtype, device))

    @classmethod
    def isotropic_K_G(
        cls, K: ScalarLike, G: ScalarLike, dtype: torch.dtype | None = None, device: Device = None
    ) -> SSR4:
        """Isotropic stiffness ``C = 3K I_vol + 2G I_dev`` from bulk and shear moduli."""
        k = _as_scalar(K, dtype, device)
        g = _as_scalar(G, dtype, device)
        vol = cls.identity_vol(k.dtype, k.device)
        dev = cls.identity_dev(k.dtype, k.device)
        return (3.0 * k) * vol + (2.0 * g) * dev

    @classmethod
    def isotropic_E_nu(
        cls, E: ScalarLike, nu: ScalarLike, dtype: torch.dtype | None = None, device: Device = None
    ) -> SSR4:
        """Isotropic stiffness from Young's modulus and Poisson's ratio.

        ``K = E / (3 (1 − 2ν))``, ``G = E / (2 (1 + ν))``, ``C = 3K I_vol + 2G I_dev``.
        """
        e = _as_scalar(E, dtype, device)
        n = _as_scalar(nu, dtype, device)
        return cls.isotropic_K_G(e / (3.0 * (1.0 - 2.0 * n)), e / (2.0 * (1.0 + n)))

    @classmethod
    def isotropic_lame(
        cls,
        lam: ScalarLike,
        mu: ScalarLike,
        dtype: torch.dtype | None = None,
        device: Device = None,
    ) -> SSR4:
        """Isotropic stiffness ``C = λ I⊗I + 2μ 1₆`` from the Lamé constants."""
        la = _as_scalar(lam, dtype, device)
        m = _as_scalar(mu, dtype, device)
        return la * cls.identity(la.dtype, la.device) + (2.0 * m) * cls.identity_sym(
            la.dtype, la.device
        )

    @classmethod
    def cubic(
        cls,
        C1: ScalarLike,
        C2: ScalarLike,
        C3: ScalarLike,
        dtype: torch.dtype | None = None,
        device: Device = None,
    ) -> SSR4:
        """Cubic stiffness ``C = C1 I_C1 + C2 I_C2 + C3 I_C3`` (Mandel entries: C11, C12, 2 C44)."""
        c1 = _as_scalar(C1, dtype, device)
        c2 = _as_scalar(C2, dtype, device)
        c3 = _as_scalar(C3, dtype, device)
        dt, dv = c1.dtype, c1.device
        return (
            c1 * cls.identity_C1(dt, dv)
            + c2 * cls.identity_C2(dt, dv)
            + c3 * cls.identity_C3(dt, dv)
        )

    @overload
    def __matmul__(self, other: SR2) -> SR2: ...
    @overload
    def __matmul__(self, other: SSR4) -> SSR4: ...
    def __matmul__(self, other: Any) -> Any:
        """``C @ ε`` (double contraction with an SR2) or ``C @ D`` (6x6 product)."""
        if isinstance(other, SR2):
            return binary(self, other, K.matvec, SR2, True, pad_base=False)
        if isinstance(other, SSR4):
            return binary(self, other, torch.matmul, SSR4, True, pad_base=False)
        return NotImplemented
