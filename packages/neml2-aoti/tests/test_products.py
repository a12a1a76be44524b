"""``sum_of_products`` (libneml2.so) against the same sum written with torch ops, on every SIMD
path this CPU supports."""

from __future__ import annotations

import random

import pytest
import torch

from neml2.aoti import FatalError
from neml2.aoti._aoti import sum_of_products, supported_simd_paths

Term = tuple[float, torch.Tensor | None, torch.Tensor]


def _reference(terms: list[Term]) -> torch.Tensor:
    out = sum(s * (b if a is None else a.double() * b.double()) for s, a, b in terms)
    assert isinstance(out, torch.Tensor)
    return out


def _in_order(shape: tuple[int, ...], perm: list[int], dtype: torch.dtype) -> torch.Tensor:
    """Random values of ``shape`` stored with axes ``perm`` outermost to innermost."""
    t = torch.randn(*[shape[p] for p in perm], dtype=torch.float64).to(dtype)
    return t.permute([perm.index(i) for i in range(len(shape))])


def _random_terms(rng: random.Random, dtype: torch.dtype) -> list[Term]:
    full = (rng.choice([1, 3, 19]), rng.choice([1, 5, 17, 100, 1000]), rng.choice([1, 6]))
    terms: list[Term] = []
    for _ in range(rng.randint(1, 5)):

        def operand() -> torch.Tensor:
            shape = tuple(d if rng.random() < 0.6 else 1 for d in full)
            perm = list(range(3))
            rng.shuffle(perm)
            return _in_order(shape, perm, dtype)

        a = operand() if rng.random() < 0.7 else None
        terms.append((rng.uniform(-2.0, 2.0), a, operand()))
    return terms


@pytest.mark.parametrize("simd", supported_simd_paths())
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_random_broadcasts_and_layouts(dtype: torch.dtype, simd: str) -> None:
    """Any mix of broadcast axes and memory orders: the value of the torch expression (up to 5
    terms of O(1) products summed in another order: a few ulps of the terms' magnitude)."""
    rng = random.Random(0)
    tol = 1e-13 if dtype == torch.float64 else 1e-5
    for _ in range(400):
        terms = _random_terms(rng, dtype)
        out = sum_of_products(terms, simd=simd)
        ref = _reference([(s, a, b.double()) for s, a, b in terms])
        assert out.dtype == dtype
        assert out.shape == ref.shape
        torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol)


def test_memory_order_follows_the_tangents() -> None:
    """Batch-innermost tangents give a batch-innermost result, also with a batch-outermost
    value among the operands (copied into that order, the result is unchanged)."""
    K, B = 19, 1000
    tangent = torch.randn(K, 6, B, dtype=torch.float64).transpose(1, 2)  # (K, B, 6), B innermost
    value = torch.randn(1, B, 6, dtype=torch.float64)  # B outermost
    coef = torch.randn(K, B, 1, dtype=torch.float64)
    scale = torch.randn(1, B, 1, dtype=torch.float64)
    terms: list[Term] = [(1.0, scale, tangent), (-0.5, coef, value)]
    out = sum_of_products(terms)
    assert out.stride() == tangent.stride()
    torch.testing.assert_close(out, _reference(terms), rtol=1e-14, atol=1e-14)


def test_shared_operand_and_constant_terms() -> None:
    """An operand used by several terms (and squared), and terms constant along every axis."""
    x = torch.randn(4, 7, dtype=torch.float64)
    one = torch.ones((), dtype=torch.float64)
    terms: list[Term] = [(2.0, x, x), (3.0, None, x), (0.25, one, one), (-1.0, None, one)]
    torch.testing.assert_close(sum_of_products(terms), 2 * x * x + 3 * x - 0.75)


def test_bad_terms_name_the_term() -> None:
    x = torch.randn(3, 4, dtype=torch.float64)
    with pytest.raises(FatalError, match="no terms"):
        sum_of_products([])
    with pytest.raises(FatalError, match="term 1 operand b: dtype Float"):
        sum_of_products([(1.0, None, x), (1.0, x, x.float())])
    with pytest.raises(FatalError, match="term 0 operand a: dtype Long"):
        sum_of_products([(1.0, torch.ones(3, 4, dtype=torch.long), x)])
    with pytest.raises(FatalError, match=r"do not broadcast together .*term 1 \[5\]"):
        sum_of_products([(1.0, None, x), (1.0, None, torch.randn(5, dtype=torch.float64))])
    if torch.cuda.is_available():
        with pytest.raises(FatalError, match="term 0 operand b: device cuda"):
            sum_of_products([(1.0, None, x.cuda())])


@pytest.mark.parametrize("simd", supported_simd_paths())
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 8, 9, 10, 13])
def test_short_rows(n: int, simd: str) -> None:
    """Batch-outermost operands whose rows (the trailing axis, e.g. 6 Mandel slots) are short:
    every row length with its own unrolled kernel, and the first lengths past them."""
    g = torch.Generator().manual_seed(n)
    K, B = 7, 300

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    terms: list[Term] = [
        (1.0, None, r(K, 1, n)),
        (0.5, r(K, B, 1), r(1, B, n)),
        (-2.0, r(1, B, 1), r(K, B, n)),
        (1.5, r(1, B, 1), r(K, 1, n)),
        (1.0, r(1, 1, 1), r(K, B, 1)),
    ]
    out = sum_of_products(terms, simd=simd)
    assert out.shape == (K, B, n) and out.is_contiguous()
    torch.testing.assert_close(out, _reference(terms), rtol=1e-13, atol=1e-13)
