"""Region reductions and constructors: sum, mean, diff, stack, cat, linspace, logspace."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import neml2.tensors as nt
from neml2.tensors import SR2, Scalar, Vec


def test_dynamic_reductions(dtype: torch.dtype) -> None:
    t = SR2(torch.rand(3, 4, 2, 6, dtype=dtype), sub_batch_ndim=1)
    torch.testing.assert_close(nt.sum(t.dynamic_batch, 0).data, t.data.sum(0))
    torch.testing.assert_close(nt.sum(t.dynamic_batch, [0, 1]).data, t.data.sum([0, 1]))
    assert nt.sum(t.dynamic_batch, 1, keepdim=True).dynamic_batch_shape == (3, 1)
    torch.testing.assert_close(nt.mean(t.dynamic_batch, 1).data, t.data.mean(1))
    torch.testing.assert_close(nt.diff(t.dynamic_batch, 1, 1).data, torch.diff(t.data, dim=1))
    torch.testing.assert_close(nt.diff(t.sub_batch, 1, 0).data, torch.diff(t.data, dim=2))
    assert nt.sum(t.sub_batch, 0, keepdim=True).sub_batch_shape == (1,)
    with pytest.raises(TypeError, match="region view"):
        nt.sum(t)
    with pytest.raises(TypeError, match="'batch' region"):
        nt.sum(t.batch)
    with pytest.raises(TypeError, match="'base' region"):
        nt.mean(t.base)


def test_stack_and_cat() -> None:
    a = Vec(torch.rand(2, 3, dtype=torch.float64))
    b = Vec(torch.rand(3, dtype=torch.float64))
    s = nt.stack([a.dynamic_batch, b.dynamic_batch], 0)
    assert tuple(s.shape) == (2, 2, 3)
    torch.testing.assert_close(s.data[1], b.data.expand(2, 3))
    ss = nt.stack([a.sub_batch, b.sub_batch], 0)
    assert ss.sub_batch_ndim == 1 and tuple(ss.shape) == (2, 2, 3)
    c = nt.cat([a.dynamic_batch, b.dynamic_batch.unsqueeze(0).dynamic_batch], -1)
    assert tuple(c.shape) == (3, 3)
    p = Vec(torch.rand(2, 4, 3, dtype=torch.float64), sub_batch_ndim=1)
    q = Vec(torch.rand(1, 2, 3, dtype=torch.float64), sub_batch_ndim=1)
    pq = nt.cat([p.sub_batch, q.sub_batch], 0)
    assert pq.sub_batch_shape == (6,) and pq.dynamic_batch_shape == (2,)
    torch.testing.assert_close(pq.data[:, 4:], q.data.expand(2, 2, 3))
    with pytest.raises(TypeError, match="share region kind"):
        nt.stack([a.dynamic_batch, b.sub_batch])
    with pytest.raises(ValueError, match="same sub-batch rank"):
        nt.cat([p.sub_batch, a.sub_batch])


def test_linspace_logspace(dtype: torch.dtype) -> None:
    a, b = (
        Scalar(torch.tensor([0.0, 1.0], dtype=dtype)),
        Scalar(torch.tensor([1.0, 3.0], dtype=dtype)),
    )
    lin = nt.linspace(a.dynamic_batch, b.dynamic_batch, 5)
    assert tuple(lin.shape) == (5, 2)
    ref = np.stack([np.linspace(0, 1, 5), np.linspace(1, 3, 5)], -1)
    np.testing.assert_allclose(lin.data.cpu().numpy(), ref, rtol=1e-6)
    sub = nt.linspace(a.sub_batch, b.sub_batch, 4)
    assert (
        sub.sub_batch_ndim == 1 and sub.sub_batch_shape == (4,) and sub.dynamic_batch_shape == (2,)
    )
    np.testing.assert_allclose(sub.data[1].cpu().numpy(), np.linspace(1, 3, 4), rtol=1e-6)
    log = nt.logspace(Scalar(0.0), Scalar(2.0), 3)
    np.testing.assert_allclose(log.data.numpy(), [1.0, 10.0, 100.0], rtol=1e-12)
    e = nt.linspace(SR2.fill(0.0), SR2.fill(1.0), 3)
    assert tuple(e.shape) == (3, 6)
