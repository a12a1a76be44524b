"""Rotations: conversions, ``rotate`` of every type, MRP composition and distances.

MRP ``r = n tan(θ/4)``, ``s = |r|²``, ``W = skew(r)``:
``R(r) = I + [4(1−s) W + 8 W²] / (1+s)²`` (Euler–Rodrigues), and
``compose(a, b) = [(1−|b|²) a + (1−|a|²) b − 2 b×a] / (1 + |a|²|b|² − 2 a·b)``
is the MRP of ``R(a) R(b)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import torch

from neml2.tensors import _kernels as K
from neml2.tensors._align import binary, nary
from neml2.tensors._kernels import broadcast_tensors
from neml2.tensors._rotation_types import MRP, Quaternion
from neml2.tensors._scalar import Scalar
from neml2.tensors._second_order import R2, SR2
from neml2.tensors._ssr4 import SSR4
from neml2.tensors._vectors import WR2, MillerIndex, Vec
from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=TensorWrapper)
T = torch.Tensor
Rotation = R2 | MRP | Quaternion


def _need(x: object, types: tuple[type, ...], fn: str) -> None:
    if not isinstance(x, types):
        names = "/".join(t.__name__ for t in types)
        raise TypeError(f"{fn}: expected {names}, got {type(x).__name__}")


def euler_rodrigues(r: MRP) -> R2:
    """Rotation matrix of an MRP."""
    _need(r, (MRP,), "euler_rodrigues")
    return r._like(K.mrp_to_r2(r.data), R2)


def _e(x: T) -> T:
    return x[..., None, None]


def _outer(u: T, v: T) -> T:
    return u.unsqueeze(-1) * v.unsqueeze(-2)


def _d_euler_rodrigues(r: T, dr: T) -> T:
    """Directional derivative of ``R(r)`` along ``dr`` (exact differentiation of the formula)."""
    s = (r * r).sum(-1)
    ds = 2.0 * (r * dr).sum(-1)
    f = 1.0 / ((1.0 + s) * (1.0 + s))
    df = -2.0 * ds * f / (1.0 + s)
    eye = torch.eye(3, dtype=r.dtype, device=r.device)
    W = K.wr2_to_r2(r)
    dW = K.wr2_to_r2(dr)
    rr = r.unsqueeze(-1) * r.unsqueeze(-2)
    drr = dr.unsqueeze(-1) * r.unsqueeze(-2)
    inner = 4.0 * _e(1.0 - s) * W + 8.0 * (rr - _e(s) * eye)
    dinner = -4.0 * _e(ds) * W + 4.0 * _e(1.0 - s) * dW + 8.0 * (drr + drr.mT - _e(ds) * eye)
    return _e(f) * dinner + _e(df) * inner


def jvp_euler_rodrigues(r: MRP, dr: MRP) -> R2:
    """Derivative of ``euler_rodrigues`` at ``r`` in direction ``dr`` (as an R2)."""
    _need(r, (MRP,), "jvp_euler_rodrigues")
    _need(dr, (MRP,), "jvp_euler_rodrigues")
    return binary(r, dr, _d_euler_rodrigues, R2, True, pad_base=False)


def to_quaternion(r: MRP) -> Quaternion:
    """``q = ((1 − |r|²), 2 r) / (1 + |r|²)``."""
    _need(r, (MRP,), "to_quaternion")
    return r._like(K.mrp_to_quat(r.data), Quaternion)


def quaternion_rotation_matrix(q: Quaternion) -> R2:
    """Rotation matrix of a unit quaternion ``(w, x, y, z)``."""
    _need(q, (Quaternion,), "quaternion_rotation_matrix")
    return q._like(K.quat_to_r2(q.data), R2)


def rotation_matrix(R: Rotation) -> R2:
    """Matrix form of any rotation representation."""
    if isinstance(R, R2):
        return R
    if isinstance(R, MRP):
        return euler_rodrigues(R)
    if isinstance(R, Quaternion):
        return quaternion_rotation_matrix(R)
    raise TypeError(f"expected a rotation (R2, MRP or Quaternion), got {type(R).__name__}")


def mandel_rotation(R: Rotation) -> SSR4:
    """6x6 Mandel rotation ``Q(R)`` with ``rotate(s, R) = Q s`` for SR2 ``s``."""
    Rm = rotation_matrix(R)
    return Rm._like(K.mandel_q(Rm.data, Rm.data), SSR4)


def _rot_kernel(cls: type[TensorWrapper]) -> Callable[[T, T], T]:
    if cls in (Vec, MillerIndex):
        return K.matvec
    if cls is R2:
        return lambda r, a: r @ a @ r.mT
    if cls is SR2:
        return lambda r, s: K.r2_to_sr2(r @ K.sr2_to_r2(s) @ r.mT)
    if cls is WR2:
        return lambda r, w: K.r2_to_wr2(r @ K.wr2_to_r2(w) @ r.mT)
    if cls is SSR4:
        return lambda r, t: (lambda q: q @ t @ q.mT)(K.mandel_q(r, r))
    raise TypeError(f"rotate: cannot rotate a {cls.__name__}")


def rotate(x: X, R: Rotation) -> X:
    """Rotate ``x``: Vec → R v, R2 → R A Rᵀ, SR2 → sym(R X Rᵀ), WR2 → skew(R W Rᵀ), SSR4 → Q T Qᵀ."""
    fn = _rot_kernel(type(x))
    return binary(rotation_matrix(R), x, fn, type(x), True, pad_base=False)


def _jvp_rot(cls: type[TensorWrapper]) -> Callable[[T, T, T], T]:
    def prod(r: T, a: T, dr: T) -> T:
        return dr @ a @ r.mT + r @ a @ dr.mT

    if cls in (Vec, MillerIndex):
        return lambda r, x, dr: K.matvec(dr, x)
    if cls is R2:
        return prod
    if cls is SR2:
        return lambda r, s, dr: K.r2_to_sr2(prod(r, K.sr2_to_r2(s), dr))
    if cls is WR2:
        return lambda r, w, dr: K.r2_to_wr2(prod(r, K.wr2_to_r2(w), dr))
    if cls is SSR4:

        def ssr4(r: T, t: T, dr: T) -> T:
            q = K.mandel_q(r, r)
            dq = K.mandel_q(dr, r) + K.mandel_q(r, dr)
            return dq @ t @ q.mT + q @ t @ dq.mT

        return ssr4
    raise TypeError(f"jvp_rotate: cannot rotate a {cls.__name__}")


def jvp_rotate(x: X, R: Rotation, dR: Rotation) -> X:
    """Derivative of ``rotate(x, R)`` w.r.t. the rotation, in direction ``dR`` (same type as ``R``)."""
    if isinstance(R, MRP):
        _need(dR, (MRP,), "jvp_rotate")
        Rm, dRm = euler_rodrigues(R), jvp_euler_rodrigues(R, dR)  # type: ignore[arg-type]
    elif isinstance(R, Quaternion):
        _need(dR, (Quaternion,), "jvp_rotate")
        Rm = quaternion_rotation_matrix(R)
        dRm = binary(R, dR, lambda q, dq: torch.func.jvp(K.quat_to_r2, (q,), (dq,))[1], R2, True)
    else:
        _need(R, (R2,), "jvp_rotate")
        _need(dR, (R2,), "jvp_rotate")
        Rm, dRm = R, dR  # type: ignore[assignment]
    fn = _jvp_rot(type(x))
    return nary(type(x), fn, (Rm, x, dRm), True, pad_base=False)


def _compose(a: T, b: T) -> T:
    na = (a * a).sum(-1, keepdim=True)
    nb = (b * b).sum(-1, keepdim=True)
    num = (1.0 - nb) * a + (1.0 - na) * b - 2.0 * K.cross(b, a)
    return num / (1.0 + na * nb - 2.0 * (a * b).sum(-1, keepdim=True))


def compose(r1: MRP, r2: MRP) -> MRP:
    """MRP of ``R(r1) R(r2)`` (``r2`` applied first)."""
    _need(r1, (MRP,), "compose")
    _need(r2, (MRP,), "compose")
    return binary(r1, r2, _compose, MRP, True)


def _compose_jac(a: T, b: T, wrt_first: bool) -> T:
    """∂compose(a, b)/∂a (``wrt_first``) or ∂/∂b as trailing 3x3 blocks."""
    na = (a * a).sum(-1)[..., None, None]
    nb = (b * b).sum(-1)[..., None, None]
    ab = (a * b).sum(-1)[..., None, None]
    eye = torch.eye(3, dtype=a.dtype, device=a.device)
    num = (1.0 - nb[..., 0]) * a + (1.0 - na[..., 0]) * b - 2.0 * K.cross(b, a)
    den = 1.0 + na * nb - 2.0 * ab
    if wrt_first:
        dn = (1.0 - nb) * eye - 2.0 * _outer(b, a) - 2.0 * K.wr2_to_r2(b)
        dd = 2.0 * nb[..., 0] * a - 2.0 * b
    else:
        dn = (1.0 - na) * eye - 2.0 * _outer(a, b) + 2.0 * K.wr2_to_r2(a)
        dd = 2.0 * na[..., 0] * b - 2.0 * a
    return dn / den - _outer(num, dd) / (den * den)


def drotate(r1: MRP, r2: MRP) -> R2:
    """∂ compose(r2, r1) / ∂ r2 (3x3)."""
    _need(r1, (MRP,), "drotate")
    return binary(r2, r1, lambda a, b: _compose_jac(a, b, True), R2, True, pad_base=False)


def drotate_self(r1: MRP, r2: MRP) -> R2:
    """∂ compose(r2, r1) / ∂ r1 (3x3)."""
    _need(r1, (MRP,), "drotate_self")
    return binary(r2, r1, lambda a, b: _compose_jac(a, b, False), R2, True, pad_base=False)


def jvp_compose(r1: MRP, r2: MRP, dr1: MRP | None = None, dr2: MRP | None = None) -> MRP:
    """Directional derivative of ``compose(r1, r2)``: ``J₁ dr1 + J₂ dr2``."""
    out: MRP | None = None
    if dr1 is not None:
        j = drotate(r2, r1)
        out = nary(MRP, K.matvec, (j, dr1), pad_base=False)
    if dr2 is not None:
        j = drotate_self(r2, r1)
        t = nary(MRP, K.matvec, (j, dr2), pad_base=False)
        out = t if out is None else out + t
    if out is None:
        raise ValueError("jvp_compose: give at least one of dr1, dr2")
    return out


def inverse(r: MRP) -> MRP:
    """Inverse rotation ``−r``."""
    _need(r, (MRP,), "inverse")
    return -r


def shadow(r: MRP) -> MRP:
    """Shadow parameters ``−r / |r|²`` (same orientation)."""
    _need(r, (MRP,), "shadow")
    d = r.data
    return r._like(-d / (d * d).sum(-1, keepdim=True))


def _gdist(a: T, b: T) -> T:
    diff = a - b
    num = torch.sqrt((diff * diff).sum(-1))
    den = torch.sqrt((1.0 + (a * a).sum(-1)) * (1.0 + (b * b).sum(-1)))
    return 4.0 * torch.asin(torch.clamp(num / den, -1.0, 1.0))


def gdist(r1: MRP, r2: MRP) -> Scalar:
    """``4 asin(clamp(|r1 − r2| / sqrt((1+|r1|²)(1+|r2|²)), −1, 1))``."""
    _need(r1, (MRP,), "gdist")
    _need(r2, (MRP,), "gdist")
    return binary(r1, r2, _gdist, Scalar, True)


def dist(r1: MRP, r2: MRP) -> Scalar:
    """Minimum of ``gdist`` over (r1, r2), (r1, s2), (s2, r2), (s2, s1), ``s = shadow``."""
    s1, s2 = shadow(r1), shadow(r2)
    ds = [gdist(r1, r2), gdist(r1, s2), gdist(s2, r2), gdist(s2, s1)]
    return nary(Scalar, lambda *x: torch.stack(broadcast_tensors(*x)).amin(0), ds)


def dV(r: MRP) -> Scalar:
    """Volume element ``(8/π) (1 + |r|²)^−3``."""
    _need(r, (MRP,), "dV")
    d = r.data
    return r._like(8.0 / math.pi * (1.0 + (d * d).sum(-1)) ** -3, Scalar)


def quaternion_dist(q1: Quaternion, q2: Quaternion) -> Scalar:
    """``2 acos(min(|q1 · q2|, 1))``."""
    _need(q1, (Quaternion,), "quaternion_dist")
    fn = lambda a, b: 2.0 * torch.acos(torch.clamp((a * b).sum(-1).abs(), max=1.0))  # noqa: E731
    return binary(q1, q2, fn, Scalar, True)
