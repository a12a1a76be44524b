"""Derivatives: gradcheck for plain ops and hand-written derivative helpers vs torch.func.

Always float64 (1e-10 comparisons).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch.func import jacfwd

import neml2.tensors as nt
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, Quaternion, Scalar, Vec

F64 = torch.float64
G = torch.Generator().manual_seed(1234)


def rnd(*shape: int, lo: float = -1.0, hi: float = 1.0) -> torch.Tensor:
    return lo + (hi - lo) * torch.rand(*shape, dtype=F64, generator=G)


def spd(n: int) -> torch.Tensor:
    a = rnd(n, 3, 3)
    return a @ a.mT + 3 * torch.eye(3, dtype=F64)


def sr2_of(m: torch.Tensor) -> torch.Tensor:
    return nt.sym(R2(m)).data


UNARY: list[tuple[str, Callable[[torch.Tensor], torch.Tensor], torch.Tensor]] = [
    ("tr", lambda d: nt.tr(SR2(d)).data, rnd(4, 6)),
    ("vol", lambda d: nt.vol(SR2(d)).data, rnd(4, 6)),
    ("dev", lambda d: nt.dev(SR2(d)).data, rnd(4, 6)),
    ("dev_r2", lambda d: nt.dev(R2(d)).data, rnd(4, 3, 3)),
    ("norm", lambda d: nt.norm(SR2(d)).data, rnd(4, 6)),
    ("norm_eps", lambda d: nt.norm(SR2(d), 1e-3).data, rnd(4, 6)),
    ("unit", lambda d: nt.unit(SR2(d), 1e-3).data, rnd(4, 6)),
    ("det_sr2", lambda d: nt.det(SR2(d)).data, rnd(4, 6)),
    ("inv_sr2", lambda d: nt.inv(SR2(d)).data, sr2_of(spd(4))),
    ("det_r2", lambda d: nt.det(R2(d)).data, rnd(4, 3, 3)),
    ("inv_r2", lambda d: nt.inv(R2(d)).data, spd(4)),
    ("sym", lambda d: nt.sym(R2(d)).data, rnd(4, 3, 3)),
    ("skew", lambda d: nt.skew(R2(d)).data, rnd(4, 3, 3)),
    ("r2_from_sr2", lambda d: nt.r2_from_sr2(SR2(d)).data, rnd(4, 6)),
    ("r2_from_wr2", lambda d: nt.r2_from_wr2(WR2(d)).data, rnd(4, 3)),
    ("euler_rodrigues", lambda d: nt.euler_rodrigues(MRP(d)).data, rnd(4, 3)),
    ("to_quaternion", lambda d: nt.to_quaternion(MRP(d)).data, rnd(4, 3)),
    ("quat_matrix", lambda d: nt.quaternion_rotation_matrix(Quaternion(d)).data, rnd(4, 4)),
    ("shadow", lambda d: nt.shadow(MRP(d)).data, rnd(4, 3, lo=0.2)),
    ("dV", lambda d: nt.dV(MRP(d)).data, rnd(4, 3)),
    ("exp_map", lambda d: nt.exp_map(WR2(d)).data, rnd(4, 3)),
    ("exp_map_small", lambda d: nt.exp_map(WR2(d)).data, 1e-3 * rnd(4, 3)),
    (
        "from_matrix",
        lambda d: MRP.from_matrix(nt.euler_rodrigues(MRP(d))).data,
        rnd(4, 3, lo=-0.6, hi=0.6),
    ),
    (
        "macaulay",
        lambda d: nt.macaulay(Scalar(d)).data,
        rnd(5, lo=0.1) * torch.tensor([1.0, -1, 1, -1, 1], dtype=F64),
    ),
    (
        "transcendentals",
        lambda d: (nt.exp(Scalar(d)) + nt.tanh(Scalar(d)) + nt.log(Scalar(d) + 2.0)).data,
        rnd(5),
    ),
    ("pow", lambda d: nt.pow(Scalar(d), 2.5).data, rnd(5, lo=0.5, hi=2.0)),
    ("opaque_pow", lambda d: nt.opaque_pow(Scalar(d), 2.5).data, rnd(5, lo=0.5, hi=2.0)),
    (
        "trig",
        lambda d: (
            (
                nt.sin(Scalar(d)) * nt.cos(Scalar(d))
                + nt.asin(Scalar(d / 2))
                + nt.acos(Scalar(d / 2))
            ).data
        ),
        rnd(5),
    ),
    (
        "hyperbolic",
        lambda d: (
            (nt.sinh(Scalar(d)) + nt.cosh(Scalar(d)) + nt.atan(Scalar(d)) + nt.tan(Scalar(d))).data
        ),
        rnd(5),
    ),
    (
        "log10_reciprocal",
        lambda d: (nt.log10(Scalar(d)) + nt.reciprocal(Scalar(d)) + nt.sqrt(Scalar(d))).data,
        rnd(5, lo=0.5, hi=2.0),
    ),
    (
        "clamp_abs",
        lambda d: (nt.clamp(Scalar(d), -0.5, 0.5) + nt.abs(Scalar(d))).data,
        rnd(7, lo=0.1) * torch.tensor([1.0, -1, 1, -1, 1, -1, 1], dtype=F64),
    ),
    (
        "where",
        lambda d: nt.where(nt.gt(Scalar(d[:, 0]), 0.0), SR2(d), 2.0 * SR2(d)).data,
        rnd(6, 6),
    ),
    (
        "quaternion_dist",
        lambda d: (
            nt.quaternion_dist(
                Quaternion(d / torch.linalg.vector_norm(d, dim=-1, keepdim=True)),
                Quaternion.identity(),
            ).data
        ),
        rnd(4, 4, lo=0.3),
    ),
    ("dist", lambda d: nt.dist(MRP(d), MRP(0.1, -0.2, 0.3)).data, rnd(4, 3, lo=-0.5, hi=0.5)),
    (
        "rotation_from_to",
        lambda d: MRP.rotation_from_to(Vec(d), Vec(1.0, 0.2, -0.3)).data,
        rnd(4, 3, lo=0.1),
    ),
    (
        "interp_ordinate",
        lambda d: (
            nt.linear_interpolation(
                Scalar(torch.tensor([0.3, 1.9], dtype=F64)),
                Scalar(torch.tensor([0.0, 1.0, 2.0], dtype=F64), sub_batch_ndim=1),
                SR2(d, sub_batch_ndim=1),
            ).data
        ),
        rnd(3, 6),
    ),
    (
        "sum_mean_sub",
        lambda d: (
            (
                nt.sum(SR2(d, sub_batch_ndim=1).sub_batch)
                + nt.mean(SR2(d, sub_batch_ndim=1).sub_batch)
            ).data
        ),
        rnd(2, 3, 6),
    ),
    ("rotate_ssr4", lambda d: nt.rotate(SSR4(d), MRP(0.1, -0.2, 0.3)).data, rnd(2, 6, 6)),
    ("rotate_sr2_by_mrp", lambda d: nt.rotate(SR2(1, 2, 3, 4, 5, 6), MRP(d)).data, rnd(3, 3)),
]


@pytest.mark.parametrize(("name", "fn", "x"), UNARY, ids=[u[0] for u in UNARY])
def test_gradcheck_unary(
    name: str, fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> None:
    assert torch.autograd.gradcheck(fn, (x.clone().requires_grad_(),))


BINARY: list[
    tuple[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor], torch.Tensor, torch.Tensor]
] = [
    ("inner", lambda a, b: nt.inner(SR2(a), SR2(b)).data, rnd(4, 6), rnd(4, 6)),
    ("outer", lambda a, b: nt.outer(SR2(a), SR2(b)).data, rnd(4, 6), rnd(4, 6)),
    ("cross", lambda a, b: nt.cross(Vec(a), Vec(b)).data, rnd(4, 3), rnd(4, 3)),
    ("ssr4_sr2", lambda a, b: (SSR4(a) @ SR2(b)).data, rnd(4, 6, 6), rnd(4, 6)),
    ("ssr4_shared", lambda a, b: (SSR4(a) @ SR2(b)).data, rnd(6, 6), rnd(4, 6)),
    ("scalar_mul", lambda a, b: (Scalar(a) * SR2(b) / Scalar(a + 3.0)).data, rnd(4), rnd(4, 6)),
    (
        "compose",
        lambda a, b: nt.compose(MRP(a), MRP(b)).data,
        rnd(4, 3, lo=-0.5, hi=0.5),
        rnd(4, 3, lo=-0.5, hi=0.5),
    ),
    (
        "gdist",
        lambda a, b: nt.gdist(MRP(a), MRP(b)).data,
        rnd(4, 3, lo=-0.5, hi=0.5),
        rnd(4, 3, lo=-0.5, hi=0.5),
    ),
    ("rotate_vec", lambda a, b: nt.rotate(Vec(a), MRP(b)).data, rnd(4, 3), rnd(4, 3)),
    ("rotate_r2", lambda a, b: nt.rotate(R2(a), MRP(b)).data, rnd(4, 3, 3), rnd(4, 3)),
    ("rotate_wr2", lambda a, b: nt.rotate(WR2(a), MRP(b)).data, rnd(4, 3), rnd(4, 3)),
    ("pow_scalar", lambda a, b: nt.pow(Scalar(a), Scalar(b)).data, rnd(4, lo=0.5, hi=2), rnd(4)),
    (
        "opaque_pow_scalar",
        lambda a, b: nt.opaque_pow(Scalar(a), Scalar(b)).data,
        rnd(4, lo=0.5, hi=2),
        rnd(4),
    ),
]


@pytest.mark.parametrize(("name", "fn", "a", "b"), BINARY, ids=[u[0] for u in BINARY])
def test_gradcheck_binary(
    name: str, fn: Callable[..., torch.Tensor], a: torch.Tensor, b: torch.Tensor
) -> None:
    assert torch.autograd.gradcheck(fn, (a.clone().requires_grad_(), b.clone().requires_grad_()))


def _close(a: torch.Tensor, b: torch.Tensor) -> None:
    torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)


def test_jvp_euler_rodrigues() -> None:
    r, dr = rnd(5, 3), rnd(5, 3)
    J = jacfwd(lambda x: nt.euler_rodrigues(MRP(x)).data)(r[0])
    for i in range(5):
        Ji = jacfwd(lambda x: nt.euler_rodrigues(MRP(x)).data)(r[i])
        _close(nt.jvp_euler_rodrigues(MRP(r[i]), MRP(dr[i])).data, Ji @ dr[i])
    assert J.shape == (3, 3, 3)
    batched = nt.jvp_euler_rodrigues(MRP(r), MRP(dr)).data
    ref = torch.stack(
        [jacfwd(lambda x: nt.euler_rodrigues(MRP(x)).data)(r[i]) @ dr[i] for i in range(5)]
    )
    _close(batched, ref)


@pytest.mark.parametrize("cls", [Vec, R2, SR2, WR2, SSR4])
@pytest.mark.parametrize("rep", ["R2", "MRP", "Quaternion"])
def test_jvp_rotate(cls: type[nt.PrimitiveTensor], rep: str) -> None:
    x: Any = cls(rnd(*cls.BASE_SHAPE))
    if rep == "R2":
        p, dp = rnd(3, 3), rnd(3, 3)
        make: Callable[[torch.Tensor], Any] = R2
    elif rep == "MRP":
        p, dp = rnd(3), rnd(3)
        make = MRP
    else:
        p, dp = rnd(4), rnd(4)
        make = Quaternion
    J = jacfwd(lambda q: nt.rotate(x, make(q)).data)(p)
    expected = (J.reshape(-1, p.numel()) @ dp.reshape(-1)).reshape(J.shape[: x.data.dim()])
    got = nt.jvp_rotate(x, make(p), make(dp))
    assert type(got) is cls
    _close(got.data, expected)


def test_drotate_and_self() -> None:
    for _ in range(3):
        r1, r2 = rnd(3, lo=-0.7, hi=0.7), rnd(3, lo=-0.7, hi=0.7)
        Ja = jacfwd(lambda a, r1=r1: nt.compose(MRP(a), MRP(r1)).data)(r2)
        Jb = jacfwd(lambda b, r2=r2: nt.compose(MRP(r2), MRP(b)).data)(r1)
        _close(nt.drotate(MRP(r1), MRP(r2)).data, Ja)
        _close(nt.drotate_self(MRP(r1), MRP(r2)).data, Jb)
        d1, d2 = rnd(3), rnd(3)
        J1 = jacfwd(lambda a, r2=r2: nt.compose(MRP(a), MRP(r2)).data)(r1)
        J2 = jacfwd(lambda b, r1=r1: nt.compose(MRP(r1), MRP(b)).data)(r2)
        got = nt.jvp_compose(MRP(r1), MRP(r2), MRP(d1), MRP(d2)).data
        _close(got, J1 @ d1 + J2 @ d2)


@pytest.mark.parametrize("scale", [1.0, 1e-3])
def test_dexp_map_and_jvp(scale: float) -> None:
    for _ in range(3):
        w, dw = scale * rnd(3), rnd(3)
        J = jacfwd(lambda x: nt.exp_map(WR2(x)).data)(w)
        _close(nt.dexp_map(WR2(w)).data, J)
        _close(nt.jvp_exp_map(WR2(w), WR2(dw)).data, J @ dw)


def test_jvp_linear_interpolation() -> None:
    X = Scalar(torch.tensor([0.0, 1.0, 2.5, 4.0], dtype=F64), sub_batch_ndim=1)
    Y = SR2(rnd(4, 6), sub_batch_ndim=1)
    x = torch.tensor([-0.5, 0.3, 1.7, 3.9, 5.0], dtype=F64)
    dx = rnd(5)
    J = jacfwd(lambda t: nt.linear_interpolation(Scalar(t), X, Y).data)(x)
    expected = torch.einsum("nin,n->ni", J, dx)
    _close(nt.jvp_linear_interpolation(Scalar(x), X, Y, Scalar(dx)).data, expected)


def test_bilinear_slopes() -> None:
    X1 = Scalar(torch.tensor([0.0, 1.0, 3.0], dtype=F64), sub_batch_ndim=1)
    X2 = Scalar(torch.tensor([-1.0, 0.0, 2.0, 2.5], dtype=F64), sub_batch_ndim=1)
    Y = Vec(rnd(3, 4, 3), sub_batch_ndim=2)
    x1 = torch.tensor([-0.2, 0.5, 2.0, 3.5], dtype=F64)
    x2 = torch.tensor([0.3, -1.5, 2.2, 1.0], dtype=F64)
    s1, s2 = nt.bilinear_interpolation_slopes(Scalar(x1), Scalar(x2), X1, X2, Y)
    J1 = jacfwd(lambda t: nt.bilinear_interpolation(Scalar(t), Scalar(x2), X1, X2, Y).data)(x1)
    J2 = jacfwd(lambda t: nt.bilinear_interpolation(Scalar(x1), Scalar(t), X1, X2, Y).data)(x2)
    _close(s1.data, torch.einsum("nin->ni", J1))
    _close(s2.data, torch.einsum("nin->ni", J2))


def test_helpers_accept_k_axis_tangents() -> None:
    """Hand-written derivative helpers broadcast over leading K axes of the tangent."""
    w, r = WR2(rnd(2, 3)), MRP(rnd(2, 3))
    K3: dict[str, Any] = {"k_ndim": 1, "k_state": ("full",), "k_pairing": (None,)}
    dw, dr = WR2(rnd(4, 2, 3), **K3), MRP(rnd(4, 2, 3), **K3)
    x = SR2(rnd(2, 6))
    out = nt.jvp_exp_map(w, dw)
    assert out.k_ndim == 1 and out.k_shape == (4,)
    for k in range(4):
        _close(out.data[k], nt.jvp_exp_map(w, WR2(dw.data[k])).data)
    rot = nt.jvp_rotate(x, r, dr)
    er = nt.jvp_euler_rodrigues(r, dr)
    assert rot.k_shape == (4,) and er.k_shape == (4,)
    for k in range(4):
        _close(rot.data[k], nt.jvp_rotate(x, r, MRP(dr.data[k])).data)
        _close(er.data[k], nt.jvp_euler_rodrigues(r, MRP(dr.data[k])).data)
