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
