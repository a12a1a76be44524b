"""Tensor algebra: invariants, products, determinants, inverses and Mandel conversions.

For ``A`` an SR2 (Mandel slots ``a_i``): ``tr A = a0 + a1 + a2``, ``vol A = (tr A / 3) I``,
``dev A = A − vol A``, ``‖A‖ = sqrt(Σ a_i² + eps)``, ``A : B = Σ a_i b_i``.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

import torch

from neml2.tensors import _kernels as K
from neml2.tensors._align import binary
from neml2.tensors._kernels import broadcast_tensors
from neml2.tensors._projectors import apply as apply_operator, projectors
from neml2.tensors._rotation_types import MRP
from neml2.tensors._scalar import Scalar
from neml2.tensors._second_order import R2, SR2
from neml2.tensors._ssr4 import SSR4
from neml2.tensors._vectors import WR2, MillerIndex, Vec
from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=TensorWrapper)


def _need(x: object, types: tuple[type, ...], fn: str) -> None:
    if not isinstance(x, types):
        names = "/".join(t.__name__ for t in types)
        raise TypeError(f"{fn}: expected {names}, got {type(x).__name__}")


def _base_dims(x: TensorWrapper) -> list[int]:
    return list(range(-x.BASE_NDIM, 0))


def tr(A: SR2 | R2) -> Scalar:
    """Trace ``A_ii``."""
    if isinstance(A, SR2):
        return A._like(A.data[..., :3].sum(-1), Scalar)
    _need(A, (R2,), "tr")
    return A._like(torch.diagonal(A.data, dim1=-2, dim2=-1).sum(-1), Scalar)


def _sr2_vol(d: torch.Tensor) -> torch.Tensor:
    """``(tr / 3) e`` of Mandel rows ``d`` with ``e = (1, 1, 1, 0, 0, 0)`` built from an iota.

    The traced form of ``vol``: pointwise ops and an index comparison only (no ``cat``, no
    constant tensor), so Inductor fuses it into its consumer without intermediates.
    """
    e = (torch.arange(6, device=d.device) < 3).to(d.dtype)
    return d[..., :3].mean(-1, keepdim=True) * e


def vol(A: X) -> X:
    """Volumetric part ``(tr A / 3) I``."""
    if isinstance(A, SR2):
        p = projectors(A.data)
        if p is not None:
            return A._like(apply_operator(A.data, p[0]))
        return A._like(_sr2_vol(A.data))
    _need(A, (R2,), "vol")
    m = torch.diagonal(A.data, dim1=-2, dim2=-1).mean(-1)[..., None, None]
    return A._like(m * torch.eye(3, dtype=A.dtype, device=A.device))


def dev(A: X) -> X:
    """Deviatoric part ``A − (tr A / 3) I``."""
    d = A.data
    if isinstance(A, SR2):
        p = projectors(d)
        if p is not None:
            return A._like(apply_operator(d, p[1]))
        return A._like(d - _sr2_vol(d))
    _need(A, (R2,), "dev")
    m = torch.diagonal(d, dim1=-2, dim2=-1).mean(-1)[..., None, None]
    return A._like(d - m * torch.eye(3, dtype=d.dtype, device=d.device))


def norm_sq(A: Any) -> Any:
    """``Σ storage²`` over the base axes (also ``norm_sq(t.base)`` of a dynamic Tensor)."""
    if hasattr(A, "_dyn_norm_sq"):
        return A._dyn_norm_sq()
    d = A.data
    return A._like((d * d).sum(_base_dims(A)) if A.BASE_NDIM else d * d, Scalar)


def norm(A: Any, eps: float = 0.0) -> Any:
    """``sqrt(Σ storage² + eps)`` (Frobenius norm for SR2; ``eps`` inside the sqrt).

    Also accepts ``t.base`` of a dynamic Tensor.
    """
    if hasattr(A, "_dyn_norm_sq"):
        sq = A._dyn_norm_sq()
        return sq._like(torch.sqrt(sq.data + eps))
    d = A.data
    if eps == 0.0:
        if A.BASE_NDIM == 0:
            return A._like(d.abs(), Scalar)
        return A._like(torch.linalg.vector_norm(d, dim=_base_dims(A)), Scalar)
    return A._like(torch.sqrt((d * d).sum(_base_dims(A)) + eps), Scalar)


def unit(A: X, eps: float = 0.0) -> X:
    """``A / norm(A, eps)``."""
    n = norm(A, eps).data
    return A._like(A.data / n.reshape(n.shape + (1,) * A.BASE_NDIM))


def dot(a: Any, b: Any) -> Any:
    """Base contraction ``Σ a b`` of two dynamic-Tensor base views (``dot(a.base, b.base)``)."""
    if not hasattr(a, "_dyn_dot"):
        raise TypeError(
            "dot: expected dynamic Tensor base views (t.base); use inner() for typed tensors"
        )
    return a._dyn_dot(b)


def inner(a: TensorWrapper, b: TensorWrapper) -> Scalar:
    """Sum of the elementwise product over base axes (``A : B`` for SR2); same class required."""
    if type(a) is not type(b):
        raise TypeError(
            f"inner: operands must have the same type, got {type(a).__name__} and {type(b).__name__}"
        )
    dims = _base_dims(a)
    if not dims:
        return binary(a, b, torch.mul, Scalar, True)
    return binary(a, b, lambda x, y: K.contract_base(x, y, len(dims)), Scalar, True)


@overload
def outer(a: SR2, b: SR2) -> SSR4: ...
@overload
def outer(a: Vec, b: Vec) -> R2: ...
def outer(a: SR2 | Vec, b: SR2 | Vec) -> SSR4 | R2:
    """``a_I b_J`` on storage: SR2 ⊗ SR2 → SSR4, Vec ⊗ Vec → R2."""
    fn = lambda x, y: x.unsqueeze(-1) * y.unsqueeze(-2)  # noqa: E731
    if isinstance(a, SR2) and isinstance(b, SR2):
        return binary(a, b, fn, SSR4, True, pad_base=False)
    if type(a) is Vec and type(b) is Vec:
        return binary(a, b, fn, R2, True, pad_base=False)
    raise TypeError(f"outer: unsupported operands {type(a).__name__} and {type(b).__name__}")


def det(A: R2 | SR2) -> Scalar:
    """Determinant (closed form)."""
    if isinstance(A, SR2):
        return A._like(K.sr2_det(A.data), Scalar)
    _need(A, (R2,), "det")
    return A._like(K.r2_det(A.data), Scalar)


def inv(A: X) -> X:
    """Inverse (closed-form 3x3 cofactor formula; SR2 result re-packed Mandel)."""
    if isinstance(A, SR2):
        return A._like(K.sr2_inv(A.data))
    if isinstance(A, R2):
        return A._like(K.r2_inv(A.data))
    if isinstance(A, SSR4):
        return A._like(torch.linalg.inv(A.data))
    raise TypeError(f"inv: expected R2/SR2/SSR4, got {type(A).__name__}")


def transpose(A: X) -> X:
    """Transpose of an R2 (``A_ji``) or SSR4 (major transpose of the 6x6 matrix)."""
    _need(A, (R2, SSR4), "transpose")
    return A._like(A.data.mT)


def sym(A: R2) -> SR2:
    """Symmetric part ``(A + Aᵀ)/2`` in Mandel form."""
    _need(A, (R2,), "sym")
    return A._like(K.r2_to_sr2(A.data), SR2)


def skew(A: R2) -> WR2:
    """Skew part ``(A − Aᵀ)/2`` as an axial vector."""
    _need(A, (R2,), "skew")
    return A._like(K.r2_to_wr2(A.data), WR2)


def r2_from_sr2(A: SR2) -> R2:
    """Full 3x3 of a Mandel SR2."""
    _need(A, (SR2,), "r2_from_sr2")
    return A._like(K.sr2_to_r2(A.data), R2)


def r2_from_wr2(w: WR2) -> R2:
    """Full skew 3x3 ``W`` of an axial vector (``W x = w × x``)."""
    _need(w, (WR2,), "r2_from_wr2")
    return w._like(K.wr2_to_r2(w.data), R2)


_VEC3 = (Vec, WR2, MRP, MillerIndex)


def cross(a: X, b: X) -> X:
    """Cross product ``a × b``."""
    _need(a, _VEC3, "cross")
    if type(a) is not type(b):
        raise TypeError(
            f"cross: operands must have the same type, got {type(a).__name__} and {type(b).__name__}"
        )
    return binary(a, b, K.cross, type(a), True)


def vdot(a: TensorWrapper, b: TensorWrapper) -> Scalar:
    """Dot product ``a · b`` of two 3-vectors."""
    _need(a, _VEC3, "vdot")
    return inner(a, b)


def vec_from_scalars(s0: Scalar, s1: Scalar, s2: Scalar) -> Vec:
    """Assemble a Vec from three Scalars (batch shapes broadcast)."""
    for s in (s0, s1, s2):
        _need(s, (Scalar,), "vec_from_scalars")
    parts = broadcast_tensors(s0.data, s1.data, s2.data)
    return (
        s0._like(torch.stack(parts, dim=-1), Vec)
        if s0.sub_batch_ndim
        else Vec._wrap(torch.stack(parts, -1))
    )


def vec_component(v: TensorWrapper, i: int) -> Scalar:
    """Component ``i`` of a 3-vector type."""
    _need(v, _VEC3, "vec_component")
    if not -3 <= i < 3:
        raise IndexError(f"vec_component: index {i} out of range for a 3-vector")
    return v._like(v.data[..., i], Scalar)
