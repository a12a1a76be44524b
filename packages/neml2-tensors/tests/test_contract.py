"""``contract_base``: eager einsum for large contractions, pointwise form otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.tensors import SR2, _kernels as K, inner


def _pair(shape_x: tuple[int, ...], shape_y: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    return (
        torch.randn(shape_x, generator=g, dtype=torch.float64),
        torch.randn(shape_y, generator=g, dtype=torch.float64),
    )


@pytest.mark.parametrize(
    ("shape_x", "shape_y", "n"),
    [
        ((6, 1, 2000, 6), (1, 5, 2000, 6), 1),  # seed stack x tangent stack (large)
        ((6, 1, 1, 6), (1, 1, 3000, 6), 1),  # identity-like seeds x one batch of SR2
        ((7, 900, 6, 6), (1, 900, 6, 6), 2),  # SSR4 : SSR4, two base axes
        ((3, 4, 6), (1, 4, 6), 1),  # small: pointwise form
        ((64, *(2,) * 9), (1, *(2,) * 9), 9),  # more base axes than einsum letters: pointwise
    ],
)
def test_matches_numpy(shape_x: tuple[int, ...], shape_y: tuple[int, ...], n: int) -> None:
    x, y = _pair(shape_x, shape_y)
    axes = tuple(range(-n, 0))
    expected = (x.numpy() * y.numpy()).sum(axis=axes)
    calls: list[str] = []
    einsum = torch.einsum

    def spy(*args: object) -> torch.Tensor:
        calls.append("einsum")
        return einsum(*args)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(torch, "einsum", spy)
        got = K.contract_base(x, y, n)
    large = np.prod(np.broadcast_shapes(shape_x, shape_y)) >= K.EINSUM_FROM and n <= 8
    assert bool(calls) == large
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-13, atol=1e-12)


def test_traced_form_stays_pointwise(op_recorder: Any) -> None:
    x, y = _pair((6, 1, 2000, 6), (1, 5, 2000, 6))
    eager = K.contract_base(x, y, 1)
    with op_recorder:
        traced = K.contract_base(x, y, 1)
    assert "aten.mul" in op_recorder.ops and "aten.sum" in op_recorder.ops
    assert not {"aten.bmm", "aten.mm"} & set(op_recorder.ops)
    torch.testing.assert_close(traced, eager, rtol=1e-13, atol=1e-12)


def test_einsum_path_is_differentiable() -> None:
    x, y = _pair((4, 3000, 6), (1, 3000, 6))
    x.requires_grad_(True)
    y.requires_grad_(True)
    gx, gy = torch.autograd.grad(K.contract_base(x, y, 1).square().sum(), (x, y))
    s = (x * y).sum(-1, keepdim=True).detach()  # d/dx (x.y)^2 = 2 (x.y) y
    torch.testing.assert_close(gx, 2 * s * y.detach())
    torch.testing.assert_close(gy, (2 * s * x.detach()).sum(0, keepdim=True))


def test_inner_of_sr2_stacks() -> None:
    x, y = _pair((5, 2000, 6), (2000, 6))
    got = inner(SR2(x), SR2(y)).data
    torch.testing.assert_close(got, (x * y).sum(-1), rtol=1e-13, atol=1e-12)


def test_integer_and_mixed_dtypes_use_the_pointwise_form() -> None:
    a = torch.ones(6, 1, 2000, 6, dtype=torch.int64)
    assert K.contract_base(a, a, 1).dtype == torch.int64
    b = torch.ones(6, 1, 2000, 6, dtype=torch.float32)
    c = torch.ones(6, 1, 2000, 6, dtype=torch.float64)
    assert K.contract_base(b, c, 1).dtype == torch.float64
