"""Eager SR2 ``vol``/``dev`` (cached Mandel projectors) vs their traced (slicing) form."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.tensors import SR2, _projectors as proj, dev, mandel_apply, vol


def _reference(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``vol`` and ``dev`` slot by slot: mean of the normal slots on the normal slots."""
    m = a[..., :3].mean(-1, keepdims=True)
    v = np.concatenate([np.repeat(m, 3, -1), np.zeros_like(a[..., 3:])], -1)
    return v, a - v


def test_eager_and_traced_forms_match_reference(
    device: torch.device, dtype: torch.dtype, op_recorder: Any
) -> None:
    g = torch.Generator().manual_seed(0)
    a = torch.randn(4, 3, 6, generator=g, dtype=torch.float64).to(device, dtype)
    ref_v, ref_d = _reference(a.double().cpu().numpy())
    tol: dict[str, Any] = (
        {"rtol": 1e-5, "atol": 1e-6} if dtype == torch.float32 else {"rtol": 1e-13, "atol": 1e-14}
    )
    assert proj.projectors(a) is not None
    eager = (vol(SR2(a)).data, dev(SR2(a)).data)
    with op_recorder:  # a dispatch mode, as under make_fx / FakeTensorMode tracing
        assert proj.projectors(a) is None
        traced = (vol(SR2(a)).data, dev(SR2(a)).data)
    for got in (eager, traced):
        torch.testing.assert_close(got[0].double().cpu(), torch.from_numpy(ref_v), **tol)
        torch.testing.assert_close(got[1].double().cpu(), torch.from_numpy(ref_d), **tol)


def test_projectors_built_in_inference_mode_serve_autograd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proj, "_CACHE", {})
    with torch.inference_mode():
        dev(SR2(torch.ones(2, 6, dtype=torch.float64)))  # builds and caches the projectors
    x = torch.randn(2, 6, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 6, dtype=torch.float64)
    (g,) = torch.autograd.grad((dev(SR2(x)).data * w).sum(), x)
    expected = w - w[:, :3].mean(-1, keepdim=True) * torch.tensor([1.0, 1, 1, 0, 0, 0])
    torch.testing.assert_close(g, expected.double())


def test_integer_data_uses_slicing() -> None:
    assert proj.projectors(torch.ones(6, dtype=torch.int64)) is None


@pytest.mark.parametrize("order", ["batch_outer", "batch_inner", "components_outer"])
def test_apply_keeps_memory_order(order: str) -> None:
    """``mandel_apply(d, op) == d @ op``, its result stored in ``d``'s memory order (a K-stacked
    tangent stored ``(K, 6, B)`` or ``(6, K, B)`` stays batch-innermost, so later pointwise ops
    see one layout)."""
    g = torch.Generator().manual_seed(1)
    op = torch.randn(6, 6, generator=g, dtype=torch.float64)  # not symmetric: transposes matter
    d = torch.randn(3, 6, 50, generator=g, dtype=torch.float64).transpose(1, 2)  # (K, B, 6)
    if order == "batch_outer":
        d = d.contiguous()
    elif order == "components_outer":
        d = torch.randn(6, 3, 50, generator=g, dtype=torch.float64).permute(1, 2, 0)
    got = mandel_apply(d, op)
    want = np.einsum("kbj,ji->kbi", d.numpy(), op.numpy())
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-13, atol=1e-13)
    assert got.stride() == d.stride()
    p = proj.projectors(d)
    assert p is not None
    # 6-term dot products against torch's GEMM, whose kernel (and summation order) differs
    # between CPUs: |error| <= 6 eps sum_j |d_j p_ji| <= 6 eps (6 * 2/3) max|d| < 1e-14 max|d|
    atol = 1e-14 * float(d.abs().max())
    torch.testing.assert_close(dev(SR2(d)).data, d @ p[1], rtol=0, atol=atol)
    assert dev(SR2(d)).data.stride() == d.stride()
