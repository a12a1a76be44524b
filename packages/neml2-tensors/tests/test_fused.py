"""``addcmul``: ``acc + a * b`` of wrappers in one pass, in place only where that is safe;
``sum_products``: a whole sum of products handed to a one-pass kernel."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.tensors import SR2, Scalar, Vec, addcmul, sum_products
from neml2.tensors._wrapper import BROADCAST, FULL

B, K = 5, 4


def _rand(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _tangent(data: torch.Tensor, cls: Any = SR2) -> Any:
    """A wrapper with one unpaired leading K axis."""
    state = FULL if data.shape[0] > 1 else BROADCAST
    return cls._wrap(data, 0, (), (), 1, (state,), (None,))


def test_scalar_coefficient_times_tangent_matches_numpy() -> None:
    acc = _tangent(_rand(K, B, 6, seed=1))
    coef = Scalar(_rand(B, seed=2))
    t = _tangent(_rand(K, B, 6, seed=3))
    got = addcmul(acc, coef, t)
    want = acc.data.numpy() + coef.data.numpy()[None, :, None] * t.data.numpy()
    assert type(got) is SR2 and got.k_ndim == 1
    np.testing.assert_allclose(got.data.numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(got.data.numpy(), (acc + coef * t).data.numpy(), rtol=1e-14)


def test_outer_product_and_python_float() -> None:
    acc = _tangent(_rand(K, B, 6, seed=4))
    rate = _tangent(_rand(K, B, seed=5), Scalar)  # a Scalar tangent times a plain SR2
    n = SR2(_rand(B, 6, seed=6))
    want = acc.data.numpy() + rate.data.numpy()[..., None] * n.data.numpy()[None]
    np.testing.assert_allclose(addcmul(acc, rate, n).data.numpy(), want, rtol=1e-14)
    t = _tangent(_rand(K, B, 6, seed=7))
    scaled = addcmul(acc, -2.5, t)
    np.testing.assert_allclose(scaled.data.numpy(), acc.data.numpy() - 2.5 * t.data.numpy())


def test_in_place_only_when_owned_and_shaped() -> None:
    acc = _tangent(_rand(K, B, 6, seed=8))
    coef, t = Scalar(_rand(B, seed=9)), _tangent(_rand(K, B, 6, seed=10))
    want = (acc + coef * t).data.clone()
    before = acc.data.clone()
    out = addcmul(acc, coef, t)  # not owned: acc untouched
    assert torch.equal(acc.data, before) and out.data.data_ptr() != acc.data.data_ptr()
    owned = addcmul(acc, coef, t, inplace=True)
    assert owned.data.data_ptr() == acc.data.data_ptr()
    torch.testing.assert_close(owned.data, want, rtol=1e-14, atol=0)
    # an accumulator with a broadcast K axis cannot hold the result: a new tensor
    narrow = _tangent(_rand(1, B, 6, seed=11))
    grown = addcmul(narrow, coef, t, inplace=True)
    assert grown.data.shape == (K, B, 6) and grown.data.data_ptr() != narrow.data.data_ptr()


def test_autograd_is_never_updated_in_place() -> None:
    acc = _tangent(_rand(K, B, 6, seed=12).requires_grad_())
    coef = Scalar(_rand(B, seed=13).requires_grad_())
    t = _tangent(_rand(K, B, 6, seed=14))
    total = addcmul(acc * 1.0, coef, t, inplace=True)
    total.data.sum().backward()
    assert acc.data.grad is not None and coef.data.grad is not None
    torch.testing.assert_close(coef.data.grad, t.data.sum(dim=(0, 2)))


def test_traced_form_is_out_of_place(op_recorder: Any) -> None:
    acc = _tangent(_rand(K, B, 6, seed=15) * 1.0)
    coef, t = Scalar(_rand(B, seed=16)), _tangent(_rand(K, B, 6, seed=17))
    with op_recorder:
        out = addcmul(acc, coef, t, inplace=True)
    assert "aten.addcmul" in op_recorder.ops and "aten.addcmul_" not in op_recorder.ops
    assert out.data.data_ptr() != acc.data.data_ptr()


def test_unfusable_operands_take_the_wrapper_ops() -> None:
    acc = _tangent(_rand(K, B, 6, seed=18))
    t = _tangent(_rand(K, B, 6, seed=19))
    coef = SR2(_rand(B, 6, seed=20))  # SR2 * SR2 is elementwise: still SR2, fused
    np.testing.assert_allclose(
        addcmul(acc, coef, t).data.numpy(), (acc + coef * t).data.numpy(), rtol=1e-14
    )
    scalar_acc = _tangent(_rand(K, B, seed=21), Scalar)  # Scalar + SR2 product: an SR2
    mixed = addcmul(scalar_acc, coef, t)
    assert type(mixed) is SR2
    np.testing.assert_allclose(mixed.data.numpy(), (scalar_acc + coef * t).data.numpy(), rtol=1e-14)
    with pytest.raises(TypeError, match="Vec and SR2"):  # the product's own error
        addcmul(acc, Vec(_rand(B, 3, seed=22)), t)
    ints = _tangent(torch.arange(K * B * 6).reshape(K, B, 6))
    np.testing.assert_array_equal(addcmul(ints, 2, ints).data.numpy(), 3 * ints.data.numpy())


def test_paired_k_axes_take_the_wrapper_ops() -> None:
    """A K axis paired with a sub-batch axis is not plain broadcasting: no fused path."""
    paired = SR2._wrap(_rand(1, B, 3, 6, seed=23), 1, (), (), 1, (BROADCAST,), (0,))
    assert (
        not paired.aligns_by_broadcasting
        and _tangent(_rand(K, B, 6, seed=1)).aligns_by_broadcasting
    )
    coef = Scalar(_rand(B, 3, seed=24)).with_sub_batch_ndim(1)
    got = addcmul(paired, coef, paired, inplace=True)
    want = paired + coef * paired
    torch.testing.assert_close(got.data, want.data, rtol=0, atol=0)
    assert (got.k_state, got.k_pairing) == (want.k_state, want.k_pairing)


def _torch_kernel(calls: list[Any]) -> Any:
    """A stand-in one-pass kernel: records its storages and sums with torch ops."""

    def kernel(terms: list[tuple[float, torch.Tensor | None, torch.Tensor]]) -> torch.Tensor:
        calls.append(terms)
        return sum(s * (b if a is None else a * b) for s, a, b in terms)  # type: ignore[return-value]

    return kernel


def test_sum_products_hands_aligned_storages_to_the_kernel() -> None:
    """Tangent + Scalar coefficient * tangent + Scalar tangent (x) SR2 value + float * tangent:
    the kernel sees broadcastable storages; the wrapped result equals the wrapper ops."""
    seed = _tangent(_rand(K, 1, 6, seed=30))
    coef, t = Scalar(_rand(B, seed=31)), _tangent(_rand(K, B, 6, seed=32))
    rate, n = _tangent(_rand(K, B, seed=33), Scalar), SR2(_rand(B, 6, seed=34))
    calls: list[Any] = []
    got = sum_products([(None, seed), (coef, t), (rate, n), (-2.0, t)], _torch_kernel(calls))
    want = seed + coef * t + rate * n + (-2.0) * t
    assert got is not None and type(got) is SR2
    assert (got.k_ndim, got.k_state) == (want.k_ndim, want.k_state)
    np.testing.assert_allclose(got.data.numpy(), want.data.numpy(), rtol=1e-14)
    (terms,) = calls
    assert [s for s, _, _ in terms] == [1.0, 1.0, 1.0, -2.0]
    assert terms[0][1] is None and terms[3][1] is None
    shapes = [x.shape for _, a, b in terms for x in (a, b) if x is not None]
    assert all(len(s) == len(shapes[0]) for s in shapes)  # aligned to one rank
    assert torch.broadcast_shapes(*shapes) == got.data.shape  # type: ignore[no-untyped-call]


def test_sum_products_declines_what_the_wrapper_ops_must_do() -> None:
    """No kernel, one term, mixed result types, a paired K axis, integer data, or a kernel that
    declines: None (the caller takes the wrapper ops)."""
    t = _tangent(_rand(K, B, 6, seed=35))
    coef = Scalar(_rand(B, seed=36))
    calls: list[Any] = []
    kernel = _torch_kernel(calls)
    assert sum_products([(coef, t), (None, t)], None) is None
    assert sum_products([(coef, t)], kernel) is None
    assert sum_products([(None, t), (None, _tangent(_rand(K, B, seed=37), Scalar))], kernel) is None
    paired = SR2._wrap(_rand(1, B, 3, 6, seed=38), 1, (), (), 1, (BROADCAST,), (0,))
    assert sum_products([(None, paired), (None, paired)], kernel) is None
    ints = _tangent(torch.arange(K * B * 6).reshape(K, B, 6))
    assert sum_products([(None, ints), (2, ints)], kernel) is None
    assert calls == []
    assert sum_products([(coef, t), (None, t)], lambda terms: None) is None
