"""Table interpolation against numpy and closed-form bilinear evaluation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import neml2.tensors as nt
from neml2.tensors import SR2, Scalar


def test_linear_matches_numpy_and_extrapolates(dtype: torch.dtype) -> None:
    Xn = np.array([0.0, 1.0, 2.5, 4.0])
    Yn = np.array([1.0, 3.0, 2.0, 5.0])
    X = Scalar(torch.tensor(Xn, dtype=dtype), sub_batch_ndim=1)
    Y = Scalar(torch.tensor(Yn, dtype=dtype), sub_batch_ndim=1)
    xs = np.array([0.0, 0.3, 1.0, 1.7, 3.9, 4.0])
    got = nt.linear_interpolation(Scalar(torch.tensor(xs, dtype=dtype)), X, Y)
    np.testing.assert_allclose(got.data.numpy(), np.interp(xs, Xn, Yn), rtol=1e-6, atol=1e-6)
    out = nt.linear_interpolation(Scalar(torch.tensor([-1.0, 5.0], dtype=dtype)), X, Y).data.numpy()
    np.testing.assert_allclose(out, [1.0 - 2.0, 5.0 + 2.0], rtol=1e-6)


def test_linear_typed_ordinate_and_batched_tables() -> None:
    X = Scalar(
        torch.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]], dtype=torch.float64), sub_batch_ndim=1
    )
    Y = SR2(torch.rand(2, 3, 6, dtype=torch.float64), sub_batch_ndim=1)
    x = Scalar(torch.tensor([0.5, 3.0], dtype=torch.float64))
    got = nt.linear_interpolation(x, X, Y)
    assert type(got) is SR2 and tuple(got.shape) == (2, 6)
    for b in range(2):
        for i in range(6):
            ref = np.interp(x.data[b].item(), X.data[b].numpy(), Y.data[b, :, i].numpy())
            assert abs(got.data[b, i].item() - ref) < 1e-12
    with pytest.raises(ValueError, match="sub-batch"):
        nt.linear_interpolation(x, Scalar(torch.zeros(3)), Y)


def test_bilinear_reproduces_bilinear_function() -> None:
    X1 = Scalar(torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64), sub_batch_ndim=1)
    X2 = Scalar(torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64), sub_batch_ndim=1)

    def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return 2.0 + 3.0 * a - b + 0.5 * a * b

    Y = Scalar(f(X1.data[:, None], X2.data[None, :]), sub_batch_ndim=2)
    x1 = torch.tensor([0.2, 2.5, -0.5, 3.3], dtype=torch.float64)
    x2 = torch.tensor([1.5, -0.3, 0.0, 2.4], dtype=torch.float64)
    got = nt.bilinear_interpolation(Scalar(x1), Scalar(x2), X1, X2, Y)
    torch.testing.assert_close(got.data, f(x1, x2))
    s1, s2 = nt.bilinear_interpolation_slopes(Scalar(x1), Scalar(x2), X1, X2, Y)
    torch.testing.assert_close(s1.data, 3.0 + 0.5 * x2)
    torch.testing.assert_close(s2.data, -1.0 + 0.5 * x1)


def test_bilinear_mixed_derivative_matches_autograd(dtype: torch.dtype) -> None:
    X1 = Scalar(torch.tensor([0.0, 1.0, 3.0], dtype=dtype), sub_batch_ndim=1)
    X2 = Scalar(torch.tensor([-1.0, 0.0, 2.0, 2.5], dtype=dtype), sub_batch_ndim=1)
    g = torch.Generator().manual_seed(3)
    Yd = torch.randn(3, 4, 6, generator=g, dtype=torch.float64).to(dtype)
    Y = SR2(Yd, sub_batch_ndim=2)
    # inside cells and outside the grid on every side (extrapolation from the edge cells)
    x1 = torch.tensor([0.7, 2.5, -0.5, 3.3, 1.5], dtype=dtype)
    x2 = torch.tensor([2.2, -1.3, -0.4, 2.7, 0.9], dtype=dtype)
    got = nt.bilinear_interpolation_mixed_derivative(Scalar(x1), Scalar(x2), X1, X2, Y)
    assert type(got) is SR2 and tuple(got.data.shape) == (5, 6)
    # closed form per cell, cell indices picked by hand from the grids above
    cells = [(0, 2), (1, 0), (0, 0), (1, 2), (1, 1)]
    for n, (i, j) in enumerate(cells):
        c12 = Yd[i + 1, j + 1] - Yd[i + 1, j] - Yd[i, j + 1] + Yd[i, j]
        h = (X1.data[i + 1] - X1.data[i]) * (X2.data[j + 1] - X2.data[j])
        torch.testing.assert_close(got.data[n], c12 / h)
    # and against autograd on the interpolated value: d2y/dx1dx2, and d2y/dx1^2 = 0
    xx1, xx2 = x1.double().requires_grad_(True), x2.double().requires_grad_(True)
    Y64 = SR2(Yd.double(), sub_batch_ndim=2)
    X164, X264 = (Scalar(X.data.double(), sub_batch_ndim=1) for X in (X1, X2))
    y = nt.bilinear_interpolation(Scalar(xx1), Scalar(xx2), X164, X264, Y64).data
    for c in range(6):
        (g1,) = torch.autograd.grad(y[:, c].sum(), xx1, create_graph=True)
        h12, h11 = torch.autograd.grad(g1.sum(), (xx2, xx1), retain_graph=True, allow_unused=True)
        torch.testing.assert_close(h12.to(dtype), got.data[:, c])
        assert h11 is None or torch.all(h11 == 0)
