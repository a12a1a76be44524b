"""Chain-rule contributions: plain tangents, ``product_term`` s and tuples of them."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import neml2.models.chain_rule as chain_rule
from neml2._native import native, sum_of_products
from neml2.models.chain_rule import ProductTerm, accumulate, apply_chain_rule, product_term
from neml2.tensors import SR2, Scalar, TensorWrapper
from neml2.tensors._wrapper import BROADCAST, FULL

B = 7


def _rand(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _tangent(data: torch.Tensor, cls: Any = SR2) -> Any:
    state = FULL if data.shape[0] > 1 else BROADCAST
    return cls._wrap(data, 0, (), (), 1, (state,), (None,))


@pytest.fixture(params=["native", "aten"])
def sum_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the native one-pass sum (when neml2-aoti is installed) and without."""
    if request.param == "native" and native("sum_of_products") is None:
        pytest.skip("neml2-aoti (the native sum_of_products) is not installed")
    if request.param == "aten":
        monkeypatch.setattr(chain_rule, "sum_of_products", lambda terms: None)
    return str(request.param)


def test_product_terms_sum_like_their_products(sum_path: str) -> None:
    c, x = Scalar(_rand(B, seed=1)), SR2(_rand(B, 6, seed=2))
    v = {
        "a": {"leaf": _tangent(_rand(6, B, 6, seed=3))},
        "b": {"leaf": _tangent(_rand(6, B, 6, seed=4)), "other": _tangent(_rand(1, B, 6, seed=5))},
        "r": {"leaf": _tangent(_rand(6, B, seed=6), Scalar)},
    }
    actions: dict[str, Any] = {
        "a": lambda d: product_term(c, d),
        "b": lambda d: (d, product_term(-0.5, d)),  # a tuple: a plain part and a scaled one
        "r": lambda d: product_term(d, x),  # Scalar tangent times a plain SR2
    }
    got = apply_chain_rule(v, "y", actions)["y"]
    va, vb, vr = v["a"]["leaf"], v["b"]["leaf"], v["r"]["leaf"]
    want = c * va + 0.5 * vb + vr * x
    assert isinstance(got["leaf"], SR2)
    torch.testing.assert_close(got["leaf"].data, want.data, rtol=1e-14, atol=1e-14)
    torch.testing.assert_close(got["other"].data, 0.5 * v["b"]["other"].data, rtol=1e-14, atol=0)


def test_inputs_are_never_updated_in_place(sum_path: str) -> None:
    parts_data = [_rand(6, B, 6, seed=s) for s in (7, 8, 9)]
    keep = [d.clone() for d in parts_data]
    c = Scalar(_rand(B, seed=10))
    one = _tangent(parts_data[0])
    total = accumulate(
        [one, product_term(c, _tangent(parts_data[1])), product_term(2.0, _tangent(parts_data[2]))]
    )
    for d, k in zip(parts_data, keep, strict=True):
        assert torch.equal(d, k)
    want = keep[0] + c.data[:, None] * keep[1] + 2.0 * keep[2]
    torch.testing.assert_close(total.data, want, rtol=1e-14, atol=1e-14)


def test_a_lone_term_is_evaluated_and_k_storage_broadcasts(sum_path: str) -> None:
    c = Scalar(_rand(B, seed=11))
    t = _tangent(_rand(6, B, 6, seed=12))
    lone = accumulate([product_term(c, t)])
    assert isinstance(lone, TensorWrapper) and not isinstance(lone, ProductTerm)
    torch.testing.assert_close(lone.data, (c * t).data, rtol=0, atol=0)
    narrow = _tangent(_rand(1, B, 6, seed=13))  # K stored once, broadcast over the 6 seeds
    mixed = accumulate([narrow, product_term(c, t), product_term(c, narrow)])
    want = narrow.data + c.data[:, None] * t.data + c.data[:, None] * narrow.data
    assert mixed.data.shape == (6, B, 6)
    torch.testing.assert_close(mixed.data, want, rtol=1e-14, atol=1e-14)


def test_native_sum_is_taken_and_keeps_batch_innermost_tangents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The back-stress rate's contributions (batch-innermost tangents, a batch-outermost
    value): one native pass, the same values as the ATen path, the tangents' memory order."""
    if native("sum_of_products") is None:
        pytest.skip("neml2-aoti (the native sum_of_products) is not installed")
    calls: list[int] = []

    def counting(terms: Any) -> Any:
        calls.append(len(terms))
        return sum_of_products(terms)

    monkeypatch.setattr(chain_rule, "sum_of_products", counting)
    n = 100

    def inner(seed: int) -> Any:
        return _tangent(_rand(19, 6, n, seed=seed).transpose(1, 2))  # (19, n, 6), n innermost

    rate = _tangent(_rand(19, n, seed=20), Scalar)
    hard, cn, cx = SR2(_rand(n, 6, seed=21)), Scalar(_rand(n, seed=22)), Scalar(_rand(n, seed=23))
    dn, dx = inner(24), inner(25)
    parts = [product_term(rate, hard), product_term(cn, dn), product_term(cx, dx)]
    got = accumulate(parts)
    assert calls == [3]
    want = rate * hard + cn * dn + cx * dx
    assert type(got) is SR2 and got.data.stride() == dn.data.stride()
    torch.testing.assert_close(got.data, want.data, rtol=1e-14, atol=1e-14)
