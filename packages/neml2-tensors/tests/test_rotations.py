"""Rotation properties checked against independent matrix computations."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

import neml2.tensors as nt
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, Quaternion, Vec


@pytest.fixture
def rots(dtype: torch.dtype) -> MRP:
    return MRP.rand(16, dtype=dtype, generator=torch.Generator().manual_seed(7))


def tol(dtype: torch.dtype) -> dict[str, Any]:
    return {"rtol": 1e-9, "atol": 1e-9} if dtype == torch.float64 else {"rtol": 1e-4, "atol": 1e-4}


def test_rand_is_principal_and_orthonormal(rots: MRP, dtype: torch.dtype) -> None:
    assert torch.all(torch.linalg.vector_norm(rots.data, dim=-1) <= 1.0 + 1e-6)
    R = nt.euler_rodrigues(rots).data
    eye = torch.eye(3, dtype=dtype).expand_as(R)
    torch.testing.assert_close(R @ R.mT, eye, **tol(dtype))
    torch.testing.assert_close(torch.linalg.det(R), torch.ones(16, dtype=dtype), **tol(dtype))


def test_from_matrix_roundtrip(rots: MRP, dtype: torch.dtype) -> None:
    back = MRP.from_matrix(nt.euler_rodrigues(rots))
    torch.testing.assert_close(back.data, rots.data, **tol(dtype))
    # angle pi about z: principal chart |r| = 1
    r = MRP.from_matrix(R2([[-1.0, 0, 0], [0, -1, 0], [0, 0, 1]], dtype=dtype))
    torch.testing.assert_close(
        nt.euler_rodrigues(r).data,
        torch.diag(torch.tensor([-1.0, -1, 1], dtype=dtype)),
        **tol(dtype),
    )


def test_quaternion_path_agrees(rots: MRP, dtype: torch.dtype) -> None:
    q = nt.to_quaternion(rots)
    torch.testing.assert_close(
        nt.quaternion_rotation_matrix(q).data, nt.euler_rodrigues(rots).data, **tol(dtype)
    )
    x = SR2(torch.rand(16, 6, dtype=dtype))
    torch.testing.assert_close(nt.rotate(x, q).data, nt.rotate(x, rots).data, **tol(dtype))


def test_rotate_matches_matrix_formulas(rots: MRP, dtype: torch.dtype) -> None:
    R = nt.euler_rodrigues(rots).data
    A = torch.rand(16, 3, 3, dtype=dtype)
    torch.testing.assert_close(nt.rotate(R2(A), rots).data, R @ A @ R.mT, **tol(dtype))
    v = torch.rand(16, 3, dtype=dtype)
    torch.testing.assert_close(
        nt.rotate(Vec(v), rots).data, (R @ v[..., None])[..., 0], **tol(dtype)
    )
    torch.testing.assert_close(
        nt.rotate(WR2(v), rots).data, (R @ v[..., None])[..., 0], **tol(dtype)
    )
    s = SR2(torch.rand(16, 6, dtype=dtype))
    Q = nt.mandel_rotation(rots)
    torch.testing.assert_close(nt.rotate(s, rots).data, (Q @ s).data, **tol(dtype))
    C = SSR4(torch.rand(16, 6, 6, dtype=dtype))
    lhs = nt.rotate(C, rots) @ nt.rotate(s, rots)
    torch.testing.assert_close(lhs.data, nt.rotate(C @ s, rots).data, **tol(dtype))


def test_compose_matches_matrix_product(rots: MRP, dtype: torch.dtype) -> None:
    a, b = rots, MRP(rots.data.flip(0))
    Rc = nt.euler_rodrigues(nt.compose(a, b)).data
    torch.testing.assert_close(
        Rc, nt.euler_rodrigues(a).data @ nt.euler_rodrigues(b).data, **tol(dtype)
    )
    ident = nt.compose(a, nt.inverse(a))
    torch.testing.assert_close(ident.data, torch.zeros_like(a.data), **tol(dtype))


def test_shadow_same_orientation_and_distances(rots: MRP, dtype: torch.dtype) -> None:
    s = nt.shadow(rots)
    torch.testing.assert_close(
        nt.euler_rodrigues(s).data, nt.euler_rodrigues(rots).data, **tol(dtype)
    )
    d = nt.dist(rots, s)
    assert torch.all(d.data.abs() < 1e-3)
    a, b = rots, MRP(rots.data.flip(0))
    Rrel = nt.euler_rodrigues(a).data.mT @ nt.euler_rodrigues(b).data
    tr = Rrel.diagonal(dim1=-2, dim2=-1).sum(-1)
    angle = torch.acos(torch.clamp((tr - 1) / 2, -1, 1))
    qd = nt.quaternion_dist(nt.to_quaternion(a), nt.to_quaternion(b)).data
    torch.testing.assert_close(qd, angle, rtol=1e-3, atol=1e-3)
    torch.testing.assert_close(nt.dist(a, b).data, angle, rtol=1e-3, atol=1e-3)


def test_axis_angle_constructors(dtype: torch.dtype) -> None:
    n, th = Vec(1.0, 2.0, 2.0, dtype=dtype), 1.1
    a = MRP.from_axis_angle(n, th)
    b = MRP.from_axis_angle_standard(n, th)
    torch.testing.assert_close(a.data, b.data, **tol(dtype))
    torch.testing.assert_close(a.data, n.data / 3.0 * math.tan(th / 4), **tol(dtype))


def test_rotation_from_to(dtype: torch.dtype) -> None:
    v1 = Vec(torch.rand(8, 3, dtype=dtype) - 0.5)
    v2 = Vec(torch.rand(8, 3, dtype=dtype) - 0.5)
    r = MRP.rotation_from_to(v1, v2)
    out = nt.rotate(nt.unit(v1), r)
    torch.testing.assert_close(out.data, nt.unit(v2).data, **tol(dtype))


def test_quaternion_identity_and_errors() -> None:
    assert torch.equal(
        nt.quaternion_rotation_matrix(Quaternion.identity()).data, torch.eye(3, dtype=torch.float64)
    )
    with pytest.raises(TypeError, match="rotation"):
        nt.rotate(Vec(1, 0, 0), Vec(0, 0, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot rotate"):
        nt.rotate(MRP(0.1, 0, 0), MRP(0.1, 0, 0))
