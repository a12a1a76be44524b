"""Raw-tensor kernels (no wrappers) for Mandel packing, 3x3 algebra and rotations.

All kernels act on the trailing base axes and broadcast over everything before.
They are written with ``unbind``/``stack`` and elementwise ops only (closed forms,
no LAPACK), which is fast for large batches and traceable by ``torch.export``.
"""

from __future__ import annotations

import math

import torch

from neml2.tensors._eager import plain_eager

SQRT2 = math.sqrt(2.0)
INV_SQRT2 = 1.0 / SQRT2

T = torch.Tensor


def unflatten(x: T, dim: int, sizes: tuple[int, ...]) -> T:
    """Typed ``Tensor.unflatten``."""
    out: T = x.unflatten(dim, sizes)  # type: ignore[no-untyped-call]
    return out


def broadcast_tensors(*xs: T) -> list[T]:
    """Typed ``torch.broadcast_tensors``."""
    return list(torch.broadcast_tensors(*xs))  # type: ignore[no-untyped-call]


def broadcast_shapes(*shapes: tuple[int, ...] | torch.Size) -> tuple[int, ...]:
    """Typed ``torch.broadcast_shapes``.

    Shapes of plain ints (eager code) are broadcast here in Python, several times faster than
    torch's reference implementation; symbolic sizes (tracing) go to torch, which knows how to
    reason about them without specializing.
    """
    ndim = 0
    for shape in shapes:
        if not isinstance(shape, tuple) or any(type(n) is not int for n in shape):
            return tuple(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]
        ndim = max(ndim, len(shape))
    out = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, ndim - len(shape)):
            if n < 0:
                raise RuntimeError(f"broadcast_shapes: negative size in {tuple(shape)}")
            if out[i] == 1:
                out[i] = n
            elif n != 1 and n != out[i]:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape: "
                    f"{[tuple(s) for s in shapes]}"
                )
    return tuple(out)


def mat(entries: list[T]) -> T:
    """Stack 9 row-major entries into a trailing (3, 3) block."""
    return unflatten(torch.stack(entries, dim=-1), -1, (3, 3))


def sr2_to_r2(d: T) -> T:
    """Mandel (6,) -> full symmetric (3, 3)."""
    a0, a1, a2, a3, a4, a5 = d.unbind(-1)
    h3, h4, h5 = a3 * INV_SQRT2, a4 * INV_SQRT2, a5 * INV_SQRT2
    return mat([a0, h5, h4, h5, a1, h3, h4, h3, a2])


def r2_to_sr2(m: T) -> T:
    """Symmetric part of (3, 3) packed as Mandel (6,): off-diagonals (Aij + Aji)/√2."""
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m.flatten(-2).unbind(-1)
    c = 0.5 * SQRT2
    return torch.stack([m0, m4, m8, (m5 + m7) * c, (m2 + m6) * c, (m1 + m3) * c], dim=-1)


def r2_to_wr2(m: T) -> T:
    """Skew part of (3, 3) as axial vector: w = ((A21-A12), (A02-A20), (A10-A01))/2."""
    _, m1, m2, m3, _, m5, m6, m7, _ = m.flatten(-2).unbind(-1)
    return torch.stack([(m7 - m5) * 0.5, (m2 - m6) * 0.5, (m3 - m1) * 0.5], dim=-1)


def wr2_to_r2(w: T) -> T:
    """Axial vector -> skew matrix W with W x = w × x."""
    w0, w1, w2 = w.unbind(-1)
    z = torch.zeros_like(w0)
    return mat([z, -w2, w1, w2, z, -w0, -w1, w0, z])


def r2_det(m: T) -> T:
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m.flatten(-2).unbind(-1)
    return m0 * (m4 * m8 - m5 * m7) - m1 * (m3 * m8 - m5 * m6) + m2 * (m3 * m7 - m4 * m6)


def r2_inv(m: T) -> T:
    """Closed-form 3x3 inverse: adj(A) / det(A)."""
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m.flatten(-2).unbind(-1)
    c00 = m4 * m8 - m5 * m7
    c10 = m5 * m6 - m3 * m8
    c20 = m3 * m7 - m4 * m6
    r = 1.0 / (m0 * c00 + m1 * c10 + m2 * c20)
    return mat(
        [
            c00 * r,
            (m2 * m7 - m1 * m8) * r,
            (m1 * m5 - m2 * m4) * r,
            c10 * r,
            (m0 * m8 - m2 * m6) * r,
            (m2 * m3 - m0 * m5) * r,
            c20 * r,
            (m1 * m6 - m0 * m7) * r,
            (m0 * m4 - m1 * m3) * r,
        ]
    )


def sr2_det(d: T) -> T:
    """det = a0a1a2 - (a0a3² + a1a4² + a2a5²)/2 + a3a4a5/√2 (Mandel slots a_i)."""
    a0, a1, a2, a3, a4, a5 = d.unbind(-1)
    return (
        a0 * a1 * a2 - 0.5 * (a0 * a3 * a3 + a1 * a4 * a4 + a2 * a5 * a5) + INV_SQRT2 * a3 * a4 * a5
    )


def sr2_inv(d: T) -> T:
    """Closed-form inverse of a symmetric 3x3 in Mandel storage (result re-packed Mandel)."""
    a0, a1, a2, a3, a4, a5 = d.unbind(-1)
    c0 = a1 * a2 - 0.5 * a3 * a3
    c1 = a0 * a2 - 0.5 * a4 * a4
    c2 = a0 * a1 - 0.5 * a5 * a5
    c3 = INV_SQRT2 * a4 * a5 - a0 * a3
    c4 = INV_SQRT2 * a3 * a5 - a1 * a4
    c5 = INV_SQRT2 * a3 * a4 - a2 * a5
    r = 1.0 / (a0 * c0 + 0.5 * (a5 * c5 + a4 * c4))
    return torch.stack([c0 * r, c1 * r, c2 * r, c3 * r, c4 * r, c5 * r], dim=-1)


def mandel_q(a: T, b: T) -> T:
    """Bilinear form B(A, B) with Q(R) = B(R, R): the 6x6 Mandel rotation."""
    A = a.flatten(-2).unbind(-1)
    B = b.flatten(-2).unbind(-1)
    s = SQRT2

    def x(i: int, j: int, k: int, l_: int) -> T:
        return A[3 * i + j] * B[3 * k + l_]

    rows: list[T] = []
    for i in range(3):
        rows += [
            x(i, 0, i, 0),
            x(i, 1, i, 1),
            x(i, 2, i, 2),
            s * x(i, 1, i, 2),
            s * x(i, 0, i, 2),
            s * x(i, 0, i, 1),
        ]
    for p, q in ((1, 2), (0, 2), (0, 1)):
        rows += [
            s * x(p, 0, q, 0),
            s * x(p, 1, q, 1),
            s * x(p, 2, q, 2),
            x(p, 1, q, 2) + x(p, 2, q, 1),
            x(p, 0, q, 2) + x(p, 2, q, 0),
            x(p, 0, q, 1) + x(p, 1, q, 0),
        ]
    return unflatten(torch.stack(rows, dim=-1), -1, (6, 6))


def mrp_to_r2(r: T) -> T:
    """Euler–Rodrigues: R = I + [4(1-s) W + 8 W²] / (1+s)², s = |r|², W = skew(r)."""
    r0, r1, r2 = r.unbind(-1)
    s = r0 * r0 + r1 * r1 + r2 * r2
    f = 1.0 / ((1.0 + s) * (1.0 + s))
    a = 4.0 * (1.0 - s) * f
    b = 8.0 * f
    d = 1.0 - b * s
    return mat(
        [
            d + b * r0 * r0,
            b * r0 * r1 - a * r2,
            b * r0 * r2 + a * r1,
            b * r1 * r0 + a * r2,
            d + b * r1 * r1,
            b * r1 * r2 - a * r0,
            b * r2 * r0 - a * r1,
            b * r2 * r1 + a * r0,
            d + b * r2 * r2,
        ]
    )


def quat_to_r2(q: T) -> T:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q.unbind(-1)
    return mat(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - z * w),
            2 * (x * z + y * w),
            2 * (x * y + z * w),
            1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),
            2 * (x * z - y * w),
            2 * (y * z + x * w),
            1 - 2 * (x * x + y * y),
        ]
    )


def mrp_to_quat(r: T) -> T:
    """q = ((1 - |r|²), 2 r) / (1 + |r|²)."""
    s = (r * r).sum(-1, keepdim=True)
    return torch.cat([1.0 - s, 2.0 * r], dim=-1) / (1.0 + s)


def quat_to_mrp(q: T) -> T:
    """Principal-chart MRP (|r| <= 1) of a quaternion: sign(w) v / (1 + |w|)."""
    w = q[..., :1]
    sgn = torch.where(w < 0, -torch.ones_like(w), torch.ones_like(w))
    return sgn * q[..., 1:] / (1.0 + w.abs())


def r2_to_quat(m: T) -> T:
    """Shepperd's method: quaternion (w ≥ 0 not enforced) of a rotation matrix."""
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m.flatten(-2).unbind(-1)
    tr = m0 + m4 + m8
    tiny = torch.finfo(m.dtype).tiny

    def root(v: T) -> T:
        return 0.5 * torch.sqrt(torch.clamp(1.0 + v, min=tiny))

    w0 = root(tr)
    c0 = torch.stack([w0, (m7 - m5) / (4 * w0), (m2 - m6) / (4 * w0), (m3 - m1) / (4 * w0)], -1)
    x1 = root(m0 - m4 - m8)
    c1 = torch.stack([(m7 - m5) / (4 * x1), x1, (m1 + m3) / (4 * x1), (m2 + m6) / (4 * x1)], -1)
    y2 = root(m4 - m0 - m8)
    c2 = torch.stack([(m2 - m6) / (4 * y2), (m1 + m3) / (4 * y2), y2, (m5 + m7) / (4 * y2)], -1)
    z3 = root(m8 - m0 - m4)
    c3 = torch.stack([(m3 - m1) / (4 * z3), (m2 + m6) / (4 * z3), (m5 + m7) / (4 * z3), z3], -1)
    which = torch.stack([tr, m0, m4, m8], -1).argmax(-1, keepdim=True).unsqueeze(-1)
    cands = torch.stack([c0, c1, c2, c3], -2)
    return torch.gather(cands, -2, which.expand((*which.shape[:-1], 4))).squeeze(-2)


def cross(a: T, b: T) -> T:
    a0, a1, a2 = a.unbind(-1)
    b0, b1, b2 = b.unbind(-1)
    return torch.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim=-1)


def matvec(m: T, v: T) -> T:
    """(…, n, n) @ (…, n) with broadcasting; uses a GEMM when the matrix is unbatched."""
    if m.dim() == 2:
        return v @ m.mT
    if v.dim() == 1:
        return m @ v
    return torch.matmul(m, v.unsqueeze(-1)).squeeze(-1)


def matmul(a: T, b: T) -> T:
    return torch.matmul(a, b)


EINSUM_FROM = 1 << 15
"""Broadcast product size (elements) from which eager :func:`contract_base` uses ``einsum``."""

_LETTERS = "abcdefgh"


def _broadcast_numel(a: torch.Size, b: torch.Size) -> int:
    """Element count of the broadcast of shapes ``a`` and ``b`` (right-aligned)."""
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return math.prod(i if j == 1 else j for i, j in zip(pa, pb, strict=True))


def contract_base(x: torch.Tensor, y: torch.Tensor, n: int) -> torch.Tensor:
    """``Σ x y`` over the trailing ``n`` axes, the leading axes broadcast.

    In plain eager mode a large contraction goes through ``einsum`` (batched GEMM): it never
    materializes the broadcast product, which for seed or tangent stacks (``(K, 1, *B, 6)``
    against ``(1, J, *B, 6)``) is several times larger than the result. Small ones, and traced
    graphs (where the pointwise form fuses), use ``(x * y).sum``.
    """
    dims = list(range(-n, 0))
    if (
        not plain_eager(x, y)  # first: traced shapes may be symbolic (no size guards)
        or n > len(_LETTERS)
        or x.numel() * y.numel() < EINSUM_FROM  # cheap bound: the broadcast is no larger
        or x.dtype != y.dtype
        or not x.is_floating_point()
        or _broadcast_numel(x.shape, y.shape) < EINSUM_FROM
    ):
        return (x * y).sum(dims)
    base = _LETTERS[:n]
    return torch.einsum(f"...{base},...{base}->...", x, y)
