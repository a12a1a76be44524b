"""Shape regions, views, indexing and alignment rules (``docs/design/tensors.md``)."""

from __future__ import annotations

import pytest
import torch

import neml2.tensors as nt
from neml2.tensors import R2, SR2, SSR4, Scalar, Vec


def test_region_shapes() -> None:
    s = Scalar(torch.arange(6.0).reshape(2, 3)).sub_batch.retag(1)
    assert s.batch_shape == (2, 3) and s.dynamic_batch_shape == (2,) and s.sub_batch_shape == (3,)
    t = SR2(
        torch.zeros(4, 2, 3, 6), sub_batch_ndim=1, k_ndim=1, k_state=("full",), k_pairing=(None,)
    )
    assert t.k_shape == (4,) and t.dynamic_batch_shape == (2,) and t.sub_batch_shape == (3,)
    assert t.batch.shape == (2, 3) and t.base.shape == (6,) and t.k.shape == (4,)
    assert (
        t.dynamic_batch.ndim == 1 and t.sub_batch.ndim == 1 and t.base.ndim == 1 and t.k.ndim == 1
    )
    assert "sub_batch" in repr(t.sub_batch)


def test_three_way_alignment() -> None:
    a = Scalar(torch.rand(2, dtype=torch.float64))
    b = Scalar(torch.rand(2, 5, dtype=torch.float64), sub_batch_ndim=1)
    c = Scalar(torch.rand(2, 3, 5, dtype=torch.float64), sub_batch_ndim=2)
    out = a + b + c
    assert tuple(out.shape) == (2, 3, 5) and out.sub_batch_ndim == 2
    ref = a.data[:, None, None] + b.data[:, None, :] + c.data
    torch.testing.assert_close(out.data, ref)


def test_global_vs_per_site() -> None:
    g = SR2(torch.rand(2, 6, dtype=torch.float64))
    p = SR2(torch.rand(2, 5, 6, dtype=torch.float64), sub_batch_ndim=1)
    out = g * p
    assert tuple(out.shape) == (2, 5, 6) and out.sub_batch_ndim == 1
    torch.testing.assert_close(out.data, g.data[:, None] * p.data)
    C = SSR4(torch.rand(2, 6, 6, dtype=torch.float64))
    s = C @ p
    torch.testing.assert_close(s.data, torch.einsum("bij,bsj->bsi", C.data, p.data))


def test_dynamic_batch_right_aligned_with_sub() -> None:
    a = SR2(torch.rand(2, 5, 6, dtype=torch.float64), sub_batch_ndim=1)
    b = SR2(torch.rand(4, 1, 6, dtype=torch.float64))
    out = a - b
    torch.testing.assert_close(out.data, a.data[None] - b.data[:, :, None])


def test_sub_state_combination() -> None:
    a = SR2(
        torch.rand(2, 1, 6, dtype=torch.float64),
        sub_batch_ndim=1,
        sub_batch_state=("broadcast",),
        sub_batch_meta=(5,),
    )
    assert a.sub_batch_shape == (5,)
    primal = SR2(torch.rand(2, 5, 6, dtype=torch.float64), sub_batch_ndim=1)
    out = a * primal
    assert out.sub_batch_state == ("broadcast",) and out.sub_batch_meta == (5,)
    full = SR2(
        torch.rand(2, 5, 6, dtype=torch.float64),
        sub_batch_ndim=1,
        sub_batch_state=("full",),
        sub_batch_meta=(5,),
    )
    assert (a + full).sub_batch_state == ("full",)
    m = a.materialize()
    assert tuple(m.shape) == (2, 5, 6) and m.sub_batch_state == ("full",)
    torch.testing.assert_close(m.data, a.data.expand(2, 5, 6))


def test_dynamic_batch_view_ops() -> None:
    t = SR2(torch.rand(3, 4, 6, dtype=torch.float64), sub_batch_ndim=1)
    u = t.dynamic_batch.unsqueeze(0)
    assert tuple(u.shape) == (1, 3, 4, 6) and u.sub_batch_ndim == 1
    assert tuple(t.dynamic_batch.unsqueeze(-1).shape) == (3, 1, 4, 6)
    assert tuple(u.dynamic_batch.squeeze(0).shape) == (3, 4, 6)
    with pytest.raises(ValueError, match="not 1"):
        t.dynamic_batch.squeeze(0)
    e = t.dynamic_batch.expand(2, 3)
    assert tuple(e.shape) == (2, 3, 4, 6) and e.data.is_contiguous()
    assert tuple(t.dynamic_batch[0].shape) == (4, 6)
    assert tuple(t.dynamic_batch[None, 1:].shape) == (1, 2, 4, 6)
    torch.testing.assert_close(t.dynamic_batch[1].data, t.data[1])


def test_sub_batch_view_ops() -> None:
    V = Vec(torch.rand(2, 4, 3, dtype=torch.float64), sub_batch_ndim=1)
    a = V.sub_batch[0]
    assert a.sub_batch_ndim == 0 and tuple(a.shape) == (2, 3)
    assert V.sub_batch[None].sub_batch_ndim == 2
    grid = Scalar(torch.rand(2, 3, 4, dtype=torch.float64), sub_batch_ndim=2)
    g = grid.sub_batch[..., 0]
    assert g.sub_batch_ndim == 1 and tuple(g.shape) == (2, 3)
    torch.testing.assert_close(g.data, grid.data[..., 0])
    u = V.sub_batch.unsqueeze(0)
    assert u.sub_batch_ndim == 2 and tuple(u.shape) == (2, 1, 4, 3)
    assert u.sub_batch.squeeze(0).sub_batch_ndim == 1
    ex = V.sub_batch.expand_at(5, 0)
    assert ex.sub_batch_shape == (5, 4)
    assert V.sub_batch.expand(6, 4).sub_batch_shape == (6, 4)
    d = Scalar(torch.rand(2, 3, dtype=torch.float64), sub_batch_ndim=1).sub_batch.diagonalize()
    assert d.sub_batch_shape == (3, 3)
    with pytest.raises(TypeError, match="Scalar-like"):
        V.sub_batch.diagonalize()
    assert V.sub_batch.flatten().sub_batch_ndim == 0
    stateful = SR2(
        torch.rand(2, 4, 6, dtype=torch.float64),
        sub_batch_ndim=1,
        sub_batch_state=("full",),
        sub_batch_meta=(4,),
    )
    us = stateful.sub_batch.unsqueeze(-1)
    assert us.sub_batch_state == ("full", "broadcast") and us.sub_batch_meta == (4, 1)


def test_batch_and_base_views() -> None:
    t = R2(torch.rand(2, 5, 3, 3, dtype=torch.float64), sub_batch_ndim=1)
    assert t.batch[0, 1:3].sub_batch_ndim == 1
    assert t.batch[:, 0].sub_batch_ndim == 0
    for op in ("unsqueeze", "squeeze", "expand"):
        with pytest.raises(TypeError, match="ambiguous"):
            getattr(t.batch, op)(0)
    torch.testing.assert_close(t.base.transpose().data, t.data.mT)
    with pytest.raises(TypeError, match="rank >= 2"):
        SR2.zeros(2).base.transpose()
    with pytest.raises(TypeError):
        t.base[0]  # type: ignore[index]
    with pytest.raises(IndexError, match="too many"):
        t.dynamic_batch[0, 0]


def test_where_and_comparisons() -> None:
    a = Scalar(torch.tensor([1.0, -2.0, 3.0]))
    b = SR2(torch.rand(3, 6, dtype=torch.float64))
    c = nt.gt(a, 0.0)
    assert type(c) is Scalar and c.dtype == torch.bool
    assert nt.lt(a, 0.0).data.tolist() == [False, True, False]
    out = nt.where(c, b, -b)
    assert type(out) is SR2
    torch.testing.assert_close(out.data, torch.where(c.data[:, None], b.data, -b.data))
    w = nt.where(c, a, 0.0)
    assert w.data.tolist() == [1.0, 0.0, 3.0]
    assert nt.equal(a, Scalar([1.0, -2.0, 3.0])) and not nt.equal(a, Vec(1, -2, 3))
    assert nt.allclose(a, a.data + 1e-12)
    with pytest.raises(TypeError, match="bool"):
        nt.where(a, a, a)
