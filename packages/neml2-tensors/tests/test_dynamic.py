"""The dynamic-base `Tensor` (``docs/design/tensors.md``, "Dynamic-base Tensor")."""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.utils._pytree as pytree

import neml2.tensors as nt
from neml2.tensors import SR2, SSR4, Tensor


def test_construction_and_regions() -> None:
    t = Tensor(torch.zeros(2, 3, 4, 5), batch_ndim=1, sub_batch_ndim=1)
    assert t.batch_shape == (2,) and t.sub_batch_shape == (3,) and t.base_shape == (4, 5)
    assert t.base_ndim == 2 and t.k_state == () and t.k_shape == ()
    assert Tensor(t.data).base_ndim == 4
    with pytest.raises(ValueError, match="do not fit"):
        Tensor(torch.zeros(2), batch_ndim=3)
    z = Tensor.zeros((2,), (3,), (6,))
    assert tuple(z.shape) == (2, 3, 6) and z.dtype == torch.float64
    assert z.new_zeros(base_shape=(2, 2)).base_shape == (2, 2)
    assert Tensor.zeros_like(z).batch_ndim == 1


def test_typed_roundtrip() -> None:
    s = SR2(torch.rand(2, 3, 6, dtype=torch.float64), sub_batch_ndim=1)
    t = Tensor.from_typed(s)
    assert t.batch_ndim == 1 and t.sub_batch_ndim == 1 and t.base_shape == (6,)
    back = t.as_typed(SR2)
    assert type(back) is SR2 and back.sub_batch_ndim == 1
    with pytest.raises(ValueError, match="does not match SSR4"):
        t.as_typed(SSR4)
    with pytest.raises(TypeError, match="as_typed"):
        SR2(t)


def test_arithmetic_and_alignment() -> None:
    a = Tensor(torch.rand(2, 6, dtype=torch.float64), batch_ndim=1)
    b = Tensor(torch.rand(2, 5, 6, dtype=torch.float64), batch_ndim=1, sub_batch_ndim=1)
    c = a + b
    assert c.sub_batch_ndim == 1
    torch.testing.assert_close(c.data, a.data[:, None] + b.data)
    torch.testing.assert_close((2.0 * a - 1.0).data, 2 * a.data - 1)
    torch.testing.assert_close((-a / a).data, -torch.ones(2, 6, dtype=torch.float64))
    with pytest.raises(TypeError, match="from_typed"):
        a + SR2.zeros(2)


def test_matmul_solve_and_unfold() -> None:
    A = Tensor(
        torch.rand(2, 4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64),
        batch_ndim=1,
    )
    x = Tensor(torch.rand(2, 4, dtype=torch.float64), batch_ndim=1)
    b = A @ x
    torch.testing.assert_close(b.data, (A.data @ x.data[..., None])[..., 0])
    torch.testing.assert_close(A.solve(b).data, x.data)
    # B with an extra leading sub axis of size 2 and base (2,) folds into base (4,)
    xs = Tensor(x.data.reshape(2, 2, 2), batch_ndim=1, sub_batch_ndim=1)
    torch.testing.assert_close((A @ xs).data, b.data)
    torch.testing.assert_close(
        A.solve(Tensor(b.data.reshape(2, 2, 2), batch_ndim=1, sub_batch_ndim=1)).data, x.data
    )
    M = Tensor(torch.rand(2, 4, 3, dtype=torch.float64), batch_ndim=1)
    torch.testing.assert_close((A @ M).data, A.data @ M.data)
    with pytest.raises(ValueError, match="mismatch"):
        A @ Tensor(torch.rand(2, 3, dtype=torch.float64), batch_ndim=1)


def test_reshapes_and_views() -> None:
    t = Tensor(torch.rand(2, 3, 4, 5, dtype=torch.float64), batch_ndim=1, sub_batch_ndim=1)
    assert t.flatten_base().base_shape == (20,)
    assert t.flatten_base().unflatten_base(4, 5).base_shape == (4, 5)
    f = t.flatten_sub_batch()
    assert f.sub_batch_ndim == 0 and f.base_shape == (3, 4, 5)
    assert t.flatten_sub_batch_into_first_base_axis().base_shape == (12, 5)
    assert t.batch.unsqueeze(0).batch_shape == (1, 2)
    assert t.sub_batch.expand(6, 3).sub_batch_shape == (6, 3)
    assert t.base[0].base_shape == (5,)
    assert t.base.transpose().base_shape == (5, 4)
    torch.testing.assert_close(t.base.flip(0).data, t.data.flip(2))
    p = t.base.pad(0, before=1, after=2)
    assert p.base_shape == (7, 5) and torch.all(p.data[:, :, 0] == 0)
    s = t.base.set(0, 0.0)
    assert torch.all(s.data[:, :, 0] == 0) and not torch.all(t.data[:, :, 0] == 0)
    torch.testing.assert_close(nt.norm(t.base).data, torch.linalg.vector_norm(t.data, dim=(-2, -1)))
    torch.testing.assert_close(nt.norm_sq(t.base).data, (t.data**2).sum((-2, -1)))
    torch.testing.assert_close(nt.dot(t.base, t.base).data, (t.data**2).sum((-2, -1)))
    torch.testing.assert_close(nt.sum(t.base).data, t.data.sum((-2, -1)))
    torch.testing.assert_close(nt.sum(t.sub_batch).data, t.data.sum(1))
    torch.testing.assert_close(nt.cat([t.base, t.base], 0).data, torch.cat([t.data, t.data], 2))
    assert nt.stack([t.batch, t.batch], 0).batch_shape == (2, 2)
    with pytest.raises(TypeError, match="region view"):
        t[0]


def test_pytree() -> None:
    t = Tensor(torch.zeros(2, 3), batch_ndim=1)
    leaves, spec = pytree.tree_flatten(t)
    assert len(leaves) == 1
    back = pytree.tree_unflatten(leaves, spec)
    assert type(back) is Tensor and back.batch_ndim == 0


def _f(v: torch.Tensor) -> torch.Tensor:
    """A nonlinear map R^6 -> R^6 (independent reference for the Jacobian tests)."""
    out: torch.Tensor = v * torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    return out + torch.sin(v).flip(-1)


def test_fold_preserving_k_into_base_gives_jacobian_blocks(
    dtype: torch.dtype, tol: dict[str, Any]
) -> None:
    x = torch.rand(3, 2, 6, dtype=dtype)  # batch (3,), sub (2,), base (6,)
    seeds = torch.eye(6, dtype=dtype).reshape(6, 1, 1, 6).expand(6, 3, 2, 6)

    def push(d: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = torch.func.jvp(_f, (x,), (d,))[1]
        return out

    tang = torch.func.vmap(push)(seeds)  # (K, B, S, 6)
    t = Tensor(tang, batch_ndim=1, sub_batch_ndim=1, k_ndim=1)
    J = t.fold_preserving()
    assert (J.k_ndim, J.batch_ndim, J.sub_batch_ndim, J.base_shape) == (0, 1, 1, (6, 6))
    want = torch.func.vmap(torch.func.vmap(torch.func.jacrev(_f)))(x)
    torch.testing.assert_close(J.data, want, **tol)
    # equation-system block (*B, *S, m, n) contracts with a direction like the jvp
    dx = torch.rand(3, 2, 6, dtype=dtype)
    Jv = J @ Tensor(dx, batch_ndim=1, sub_batch_ndim=1)
    torch.testing.assert_close(Jv.data, torch.func.jvp(_f, (x,), (dx,))[1], **tol)
    # K reshaped into an input base shape, e.g. (2, 3)
    R = t.fold_preserving(shape=(2, 3))
    assert R.base_shape == (6, 2, 3) and R.sub_batch_shape == (2,)
    torch.testing.assert_close(R.data, want.reshape(3, 2, 6, 2, 3), **tol)


def test_fold_preserving_several_k_axes_and_into_batch() -> None:
    d = torch.rand(2, 1, 4, 3, 5, dtype=torch.float64)  # K (2, 1) [size-1 paired], B, S, base
    t = Tensor(d, batch_ndim=1, sub_batch_ndim=1, k_ndim=2)
    f = t.fold_preserving()
    assert f.shape == (4, 3, 5, 2, 1) and f.sub_batch_ndim == 1 and f.base_ndim == 3
    for k in range(2):
        torch.testing.assert_close(f.data[..., k, 0], d[k, 0])
    b = t.fold_preserving(into="batch")
    assert (b.k_ndim, b.batch_shape, b.sub_batch_shape, b.base_shape) == (0, (2, 1, 4), (3,), (5,))
    assert b.data.data_ptr() == d.data_ptr()
    assert t.fold_preserving(into="batch", shape=(2,)).batch_shape == (2, 4)
    plain = Tensor(torch.rand(4, 5, dtype=torch.float64), batch_ndim=1)
    assert plain.fold_preserving(shape=(1,)).base_shape == (5, 1)
    with pytest.raises(ValueError, match=r"shape \(3,\) does not hold the K shape \(2, 1\)"):
        t.fold_preserving(shape=(3,))
    with pytest.raises(ValueError, match="into must be 'base' or 'batch'"):
        t.fold_preserving(into="sub")


def test_fold_preserving_of_a_typed_tangent() -> None:
    C = nt.SSR4.isotropic_E_nu(200.0, 0.3)
    x = SR2(torch.rand(4, 6, dtype=torch.float64))
    t = C @ nt.identity_seed(x)  # tangent of the linear map, K = 6
    J = Tensor.from_typed(t).fold_preserving()
    assert (J.batch_shape, J.base_shape) == ((4,), (6, 6))
    torch.testing.assert_close(J.data, C.data.expand(4, 6, 6))
