"""Three-component types sharing storage ``(3,)``: `Vec`, `WR2`, `MillerIndex`.

The class tag alone drives dispatch (e.g. ``rotate(Vec)`` is ``R v`` while
``rotate(WR2)`` is ``skew(R W Rᵀ)``). ``WR2`` stores the axial vector ``w`` of the
skew matrix ``W = [[0, -w2, w1], [w2, 0, -w0], [-w1, w0, 0]]`` (``W x = w × x``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from neml2.tensors._primitive import PrimitiveTensor


@dataclass(frozen=True, eq=False, init=False, repr=False)
class Vec(PrimitiveTensor):
    """Cartesian 3-vector."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (3,)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class WR2(PrimitiveTensor):
    """Skew-symmetric second-order tensor stored as its axial vector (identity: zero)."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (3,)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class MillerIndex(PrimitiveTensor):
    """Crystallographic indices (h, k, l), stored as floats."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (3,)
