"""The 28 numeric convention checks, values as tabulated in ``docs/design/tensors.md``,
"Numeric conventions"."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
import torch.utils._pytree as pytree

from neml2.tensors import (
    MRP,
    R2,
    SR2,
    SSR4,
    WR2,
    Scalar,
    Vec,
    compose,
    det,
    dev,
    dist,
    dV,
    euler_rodrigues,
    exp_map,
    gdist,
    heaviside,
    inner,
    inv,
    macaulay,
    norm,
    quaternion_dist,
    r2_from_sr2,
    r2_from_wr2,
    rotate,
    skew,
    sqrt,
    sym,
    to_quaternion,
    tr,
    unit,
    vol,
)

S2 = math.sqrt(2.0)
M = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]


@pytest.fixture
def kw(dtype: torch.dtype, device: torch.device) -> dict[str, Any]:
    return {"dtype": dtype, "device": device}


def close(got: object, expected: object, tol: dict[str, Any]) -> None:
    g = got.data if hasattr(got, "data") else got
    assert isinstance(g, torch.Tensor)
    e = torch.as_tensor(expected, dtype=g.dtype, device=g.device)
    torch.testing.assert_close(g, e.expand_as(g) if e.dim() < g.dim() else e, **tol)


def x_(kw: dict[str, Any]) -> SR2:
    return SR2.fill(1, 2, 3, 4, 5, 6, **kw)


def test_01_sym(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(sym(R2(M, **kw)), [1, 5, 9, 7 * S2, 5 * S2, 3 * S2], tol)


def test_02_skew(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    w = skew(R2(M, **kw))
    close(w, [1, -2, 1], tol)
    close(r2_from_wr2(w), [[0, -1, -2], [1, 0, -1], [2, 1, 0]], tol)


def test_03_mandel_storage(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(x_(kw), [1, 2, 3, 5.656854249492381, 7.0710678118654755, 8.48528137423857], tol)


def test_04_r2_from_sr2(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(r2_from_sr2(x_(kw)), [[1, 6, 5], [6, 2, 4], [5, 4, 3]], tol)


def test_05_tr_vol_dev(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    x = x_(kw)
    close(tr(x), 6.0, tol)
    close(vol(x), [2, 2, 2, 0, 0, 0], tol)
    close(dev(x), [-1, 0, 1, 4 * S2, 5 * S2, 6 * S2], tol)


def test_06_norm_inner_det(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    x = x_(kw)
    close(norm(x), math.sqrt(168.0), tol)
    close(inner(x, x), 168.0, {"rtol": tol["rtol"], "atol": 1e-4})
    close(det(x), 72.0, {"rtol": tol["rtol"], "atol": 1e-4})


def test_07_inv_sr2(kw: dict[str, Any], dtype: torch.dtype) -> None:
    got = inv(x_(kw))
    t = {"rtol": 1e-6, "atol": 1e-6} if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-5}
    close(got, [-0.138889, -0.305556, -0.472222, 0.510688, 0.274986, 0.039284], t)
    # independent: matrix inverse of the full symmetric tensor
    full = torch.linalg.inv(r2_from_sr2(x_(kw)).data.double())
    close(r2_from_sr2(got), full.to(got.dtype), {"rtol": 1e-4, "atol": 1e-5})


def test_08_det_singular(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(det(R2(M, **kw)), 0.0, {"rtol": 0.0, "atol": 1e-4})


def _iso(kw: dict[str, Any]) -> SSR4:
    return SSR4.isotropic_E_nu(200e3, 0.3, **kw)


def test_09_isotropic(kw: dict[str, Any], dtype: torch.dtype) -> None:
    C = _iso(kw)
    t = {"rtol": 1e-8 if dtype == torch.float64 else 1e-5, "atol": 0.0}
    close(C.data[0, 0], 269230.769230769, t)
    close(C.data[0, 1], 115384.615384615, t)
    close(C.data[3, 3], 153846.153846154, t)
    K, G = 200e3 / (3 * (1 - 0.6)), 200e3 / (2 * 1.3)
    close(SSR4.isotropic_K_G(K, G, **kw), C.data, t)


def test_10_stress(kw: dict[str, Any], dtype: torch.dtype) -> None:
    s = _iso(kw) @ SR2.fill(1e-3, 0, 0, 0, 0, 2e-3, **kw)
    t = {"rtol": 1e-6 if dtype == torch.float64 else 1e-5, "atol": 1e-4}
    close(s, [269.2307692, 115.3846154, 115.3846154, 0, 0, 435.1425737], t)
    close(s.data[5] / S2, 307.6923077, t)


def test_11_axis_angle(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    r = MRP.from_axis_angle(Vec(0, 0, 1, **kw), math.pi / 2)
    close(r, [0, 0, math.tan(math.pi / 8)], tol)
    close(euler_rodrigues(r), [[0, -1, 0], [1, 0, 0], [0, 0, 1]], tol)


def test_12_rotate_vec_quaternion(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    r = MRP.from_axis_angle(Vec(0, 0, 1, **kw), math.pi / 2)
    close(rotate(Vec(1, 0, 0, **kw), r), [0, 1, 0], tol)
    h = math.sqrt(0.5)
    close(to_quaternion(r), [h, 0, 0, h], tol)


R13 = [
    [0.1997538, -0.9172053, -0.3447215],
    [0.6709757, 0.3844260, -0.6340412],
    [0.7140659, -0.1046476, 0.6922130],
]
T7 = {"rtol": 0.0, "atol": 5e-7}


def test_13_euler_rodrigues(kw: dict[str, Any]) -> None:
    close(euler_rodrigues(MRP(0.1, -0.2, 0.3, **kw)), R13, T7)


def test_14_to_quaternion(kw: dict[str, Any]) -> None:
    close(
        to_quaternion(MRP(0.1, -0.2, 0.3, **kw)), [0.7543860, 0.1754386, -0.3508772, 0.5263158], T7
    )


def test_15_compose(kw: dict[str, Any]) -> None:
    r1, r2 = MRP(0.1, 0, 0, **kw), MRP(0, 0.2, 0, **kw)
    c = compose(r1, r2)
    close(c, [0.0959616, 0.1979208, 0.0399840], T7)
    close(
        c,
        MRP.from_matrix(euler_rodrigues(r1) @ euler_rodrigues(r2)).data,
        {"rtol": 1e-5, "atol": 1e-6},
    )


def test_16_rotate_sr2(kw: dict[str, Any]) -> None:
    got = rotate(x_(kw), MRP(0.1, -0.2, 0.3, **kw))
    close(
        got,
        [1.7211974, -1.1571122, 5.4359149, 2.3986491, -10.4242635, -4.4419155],
        {"rtol": 0, "atol": 5e-6},
    )


def test_17_rotate_isotropic_ssr4(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    got = rotate(2 * SSR4.identity_sym(**kw), MRP(0.1, -0.2, 0.3, **kw))
    close(got, 2 * torch.eye(6), {"rtol": 0, "atol": 1e-5})


def test_18_exp_map(kw: dict[str, Any], dtype: torch.dtype) -> None:
    t = {"rtol": 0, "atol": 1e-10 if dtype == torch.float64 else 1e-6}
    close(exp_map(WR2(0.01, 0.02, -0.03, **kw)), [0.0025000010, 0.0050000020, -0.0075000031], t)
    close(exp_map(WR2(0, 0, math.pi / 2, **kw)), [0, 0, 2.745992], {"rtol": 0, "atol": 1e-5})


def test_19_distances(kw: dict[str, Any]) -> None:
    r1, r2 = MRP(0.1, 0, 0, **kw), MRP(0, 0.2, 0, **kw)
    t = {"rtol": 0, "atol": 1e-6}
    close(gdist(r1, r2), 0.8797816, t)
    close(dist(r1, r2), 0.8797816, t)
    close(quaternion_dist(to_quaternion(r1), to_quaternion(r2)), 0.8797816, t)


def test_20_dV(kw: dict[str, Any]) -> None:
    close(dV(MRP(0, 0, math.tan(math.pi / 8), **kw)), 1.583551, {"rtol": 0, "atol": 1e-6})


def test_21_heaviside_macaulay(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(heaviside(Scalar(0.0, **kw)), 0.5, tol)
    close(macaulay(Scalar([-1.0, 2.0], **kw)), [0.0, 2.0], tol)


def test_22_von_mises(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    s = SR2.fill(100, 0, 0, 0, 0, 0, **kw)
    close(sqrt(1.5 * inner(dev(s), dev(s))), 100.0, {"rtol": 1e-5, "atol": 1e-4})
    close(norm(dev(s)), 100.0 * math.sqrt(2.0 / 3.0), {"rtol": 1e-5, "atol": 1e-4})


def test_23_unit(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(unit(SR2.fill(3, 4, 0, **kw)), [0.6, 0.8, 0, 0, 0, 0], tol)


def test_24_inv_r2(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    close(
        inv(R2([[2, 1, 0], [0, 1, 0], [0, 0, 4]], **kw)),
        [[0.5, -0.5, 0], [0, 1, 0], [0, 0, 0.25]],
        tol,
    )


def test_25_literal_rules(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    a = SR2(torch.zeros(2, 6, **kw))
    with pytest.raises(TypeError, match="only Scalar accepts literals"):
        a + 1.0
    with pytest.raises(TypeError):
        1.0 - a
    b = SR2.fill(1, 2, 3, **kw)
    close(b * 2, 2 * b.data, tol)
    close(2 * b, 2 * b.data, tol)


def test_26_alignment_shapes(kw: dict[str, Any]) -> None:
    a = SR2(torch.zeros(2, 5, 6, **kw), sub_batch_ndim=1)
    b = SR2(torch.zeros(4, 1, 6, **kw))
    c = a + b
    assert tuple(c.shape) == (4, 2, 5, 6)
    assert c.sub_batch_ndim == 1


@pytest.mark.parametrize(
    "cls", ["Scalar", "Vec", "R2", "SR2", "WR2", "SSR4", "MRP", "Quaternion", "MillerIndex"]
)
def test_27_pytree(cls: str, kw: dict[str, Any]) -> None:
    import neml2.tensors as nt

    T = getattr(nt, cls)
    w = T(torch.zeros((2, 5, *T.BASE_SHAPE), **kw), sub_batch_ndim=1)
    leaves, spec = pytree.tree_flatten(w)
    assert len(leaves) == 1 and leaves[0] is w.data
    back = pytree.tree_unflatten(leaves, spec)
    assert type(back) is T
    assert back.sub_batch_ndim == 0 and back.k_ndim == 0


def test_28_cubic_basis(kw: dict[str, Any], tol: dict[str, Any]) -> None:
    s = SSR4.identity_C1(**kw) + SSR4.identity_C2(**kw) + SSR4.identity_C3(**kw)
    expected = torch.zeros(6, 6)
    expected[:3, :3] = 1.0
    expected[3:, 3:] = torch.eye(3)
    close(s, expected, tol)
