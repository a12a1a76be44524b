"""``batched_dense_solve`` and ``batched_parts_solve`` (libneml2.so) against ``torch.linalg.solve``.

Every test runs on each SIMD path this CPU supports (``simd``), and every path is compared with
the scalar one: the lane kernels repeat the scalar kernel's operations in the same order without
fused multiply-adds, so their results are bit-identical by design.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from neml2.aoti import FatalError
from neml2.aoti._aoti import (
    batched_dense_solve,
    batched_parts_solve,
    simd_path,
    supported_simd_paths,
)

PATHS = supported_simd_paths()


@pytest.fixture(params=PATHS)
def simd(request: pytest.FixtureRequest) -> str:
    """A SIMD path this CPU supports."""
    return str(request.param)


def _tol(dtype: torch.dtype) -> float:
    return 1e-11 if dtype == torch.float64 else 2e-4


def _systems(B: int, n: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Well-conditioned systems with shuffled rows, so most elements need row pivoting."""
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(B, n, n, dtype=torch.float64, generator=g) + 2 * n * torch.eye(n)
    return A[:, torch.randperm(n, generator=g)].to(dtype)


@pytest.mark.parametrize("n", [1, 2, 6, 19, 24, 25, 32, 33])
@pytest.mark.parametrize("k", [None, 1, 5, 33])  # 33: the SIMD kernels take 8 columns at a time
def test_matches_torch(n: int, k: int | None, dtype: torch.dtype, simd: str) -> None:
    A = _systems(50, n, dtype, seed=n)
    shape = (50, n) if k is None else (50, n, k)
    b = torch.randn(shape, dtype=torch.float64).to(dtype)
    x = batched_dense_solve(A, b, simd=simd)
    assert torch.equal(x, batched_dense_solve(A, b, simd="scalar"))
    assert x.shape == b.shape and x.dtype == dtype
    rhs = b if k is not None else b.unsqueeze(-1)
    ref = torch.linalg.solve(A.double(), rhs.double())
    got = x if k is not None else x.unsqueeze(-1)
    torch.testing.assert_close(got.double(), ref, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("n", [3, 19, 25])  # compile-time n (<= 24) and the runtime-n kernel
@pytest.mark.parametrize("k", [None, 3, 19])  # 19: columns past the first 8 replay the LU
def test_each_element_as_if_solved_alone(
    n: int, k: int | None, dtype: torch.dtype, simd: str
) -> None:
    """Elements solved in SIMD lanes (groups of 4-16) and in the scalar tail round identically."""
    B = 16 * 2 + 5
    A = _systems(B, n, dtype, seed=100 + n)
    A[3, 1:] = 0.0  # sparse rows: some lanes skip an elimination row, others do not
    A[3, 1:, 1:] += torch.eye(n - 1, dtype=dtype)
    g = torch.Generator().manual_seed(n)
    b = torch.randn((B, n) if k is None else (B, n, k), dtype=torch.float64, generator=g).to(dtype)
    x = batched_dense_solve(A, b, simd=simd)
    for e in range(B):
        alone = batched_dense_solve(A[e : e + 1], b[e : e + 1], simd=simd)
        assert torch.equal(x[e : e + 1], alone), e


def _stored(A: torch.Tensor, order: tuple[int, int, int]) -> torch.Tensor:
    """``A`` (B, n, n) with the same values, stored with its axes in memory order ``order``
    (outermost first)."""
    return A.permute(order).contiguous().permute(tuple(order.index(d) for d in range(3)))


@pytest.mark.parametrize(
    "order",
    [(1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0)],
    ids=["rows-batch-columns", "columns-batch-rows", "column-major", "batch-innermost"],
)
@pytest.mark.parametrize("n", [6, 19])
def test_any_storage_order_solves_bit_identically(
    order: tuple[int, int, int], n: int, dtype: torch.dtype, simd: str
) -> None:
    """The lane kernels load rows, columns, batch-innermost entries or single entries depending
    on how A is stored; every order gives the contiguous result bit for bit. Columns-batch-rows
    is the layout of a compiled graph's Jacobian."""
    B = 16 * 3 + 5
    A = _systems(B, n, dtype, seed=200 + n)
    b = torch.randn(B, n, 3, dtype=torch.float64).to(dtype)
    stored = _stored(A, order)
    assert torch.equal(stored, A) and not stored.is_contiguous()
    want = batched_dense_solve(A, b, simd="scalar")
    assert torch.equal(batched_dense_solve(stored, b, simd=simd), want)


@pytest.mark.parametrize("n", [5, 19, 25])
def test_pivot_ties_and_nans_choose_as_the_sequential_search(
    n: int, dtype: torch.dtype, simd: str
) -> None:
    """The lane kernels search each pivot column in two halves at once; the chosen row must be
    the scalar kernel's sequential choice, the first row of largest magnitude, with NaNs never
    chosen and a NaN diagonal kept. Small-integer matrices tie in magnitude within and across
    the halves of many columns (a different tie-break rounds differently); NaNs sit above, on
    and below the middle row. Every path equals the scalar one bit for bit, NaNs included."""
    B = 16 * 3 + 5
    g = torch.Generator().manual_seed(300 + n)
    A = torch.randint(-3, 4, (B, n, n), generator=g).to(dtype)
    A[0] = 0.0
    A[0, 1, 0] = A[0, n - 1, 0] = -2.0  # the tie at rows 1 and n - 1 of column 0
    A[0, 1:, 1:] += 3 * torch.eye(n - 1, dtype=dtype)
    A[0, 0, n - 1] = 1.0
    A[5, 1 + (n - 1) // 2, 0] = float("nan")  # NaN first in the lower half
    A[9, n - 1, 0] = float("nan")  # NaN last in the lower half
    A[6, 1, 0] = float("nan")  # NaN in the upper half
    A[7, 0, 0] = float("nan")  # NaN diagonal
    A[8, :, 0] = -0.0
    A[8, 0, 0] = 0.0
    A[8, n - 1, 0] = 1.0
    b = torch.randn(B, n, 2, dtype=torch.float64, generator=g).to(dtype)
    want = batched_dense_solve(A, b, simd="scalar")
    got = batched_dense_solve(A, b, simd=simd)
    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
    assert want[0].isfinite().all() and not want[7].isfinite().any()
    ref = torch.linalg.solve(A[:1].double(), b[:1].double())
    torch.testing.assert_close(want[:1].double(), ref, rtol=_tol(dtype), atol=_tol(dtype))


def test_zero_leading_pivot(dtype: torch.dtype, simd: str) -> None:
    A = torch.tensor([[[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 4.0]]], dtype=dtype)
    b = torch.tensor([[2.0, 3.0, 8.0]], dtype=dtype)
    A, b = A.expand(9, 3, 3), b.expand(9, 3)  # 9: lane groups and a scalar tail
    torch.testing.assert_close(
        batched_dense_solve(A, b, simd=simd),
        torch.tensor([[3.0, 1.0, 2.0]], dtype=dtype).expand(9, 3),
    )


def test_singular_element_only_that_element(dtype: torch.dtype, simd: str) -> None:
    A = _systems(6, 19, dtype, seed=7)
    A[2, 5] = A[2, 11]  # duplicate row
    A[4, :, 0] = 0.0  # zero column
    b = torch.randn(6, 19, dtype=torch.float64).to(dtype)
    x = batched_dense_solve(A, b, simd=simd)
    finite = x.isfinite().all(-1)
    assert finite.tolist() == [True, True, False, True, False, True]
    ok = finite.nonzero().squeeze(-1)
    ref = torch.linalg.solve(A[ok].double(), b[ok].double())
    torch.testing.assert_close(x[ok].double(), ref, rtol=_tol(dtype), atol=_tol(dtype))


def test_noncontiguous_and_autograd_fallback() -> None:
    A = _systems(8, 7, torch.float64, seed=1).transpose(1, 2)
    b = torch.randn(8, 3, 7, dtype=torch.float64).transpose(1, 2)
    torch.testing.assert_close(batched_dense_solve(A, b), torch.linalg.solve(A, b))
    batch_last = A.permute(1, 2, 0).contiguous().permute(2, 0, 1)  # (B, n, n) with B stride 1
    torch.testing.assert_close(batched_dense_solve(batch_last, b), torch.linalg.solve(A, b))
    Ag = A.clone().requires_grad_(True)
    x = batched_dense_solve(Ag, b)
    (gA,) = torch.autograd.grad(x.sum(), Ag)
    (ref,) = torch.autograd.grad(torch.linalg.solve(Ag, b).sum(), Ag)
    torch.testing.assert_close(gA, ref)


@pytest.mark.parametrize(
    ("A", "b", "match"),
    [
        (torch.eye(3), torch.ones(3), r"\(B, n, n\)"),
        (torch.eye(3).expand(2, 3, 3), torch.ones(2, 4), r"\(B, n\)"),
        (torch.eye(3).expand(2, 3, 3), torch.ones(3, 3), r"\(B, n\)"),
        (torch.eye(3).expand(2, 3, 3), torch.ones(2, 3, dtype=torch.float64), "dtype"),
    ],
)
def test_bad_inputs(A: torch.Tensor, b: torch.Tensor, match: str) -> None:
    with pytest.raises(FatalError, match=match):
        batched_dense_solve(A, b)


def _split(
    A: torch.Tensor, rows: list[int], cols: list[int]
) -> list[tuple[int, int, torch.Tensor]]:
    """A as the blocks of a row x column partition, the all-zero blocks left out."""
    parts = []
    r0 = 0
    for r in rows:
        c0 = 0
        for c in cols:
            blk = A[:, r0 : r0 + r, c0 : c0 + c]
            if blk.any():
                parts.append((r0, c0, blk))
            c0 += c
        r0 += r
    return parts


@pytest.mark.parametrize("k", [None, 4, 19])
def test_parts_solve_matches_the_assembled_matrix(
    k: int | None, dtype: torch.dtype, simd: str
) -> None:
    """Chaboche-like 6/1/6/6 blocks, two of them zero (never passed), mixed strides: the parts
    solve equals the dense solve of the assembled matrix bit for bit (the same LU on the same
    entries) and torch.linalg.solve to rounding."""
    B, sizes = 37, [6, 1, 6, 6]
    A = _systems(B, 19, torch.float64, seed=5)
    A[:, 7:13, 13:19] = 0.0
    A[:, 13:19, 7:13] = 0.0
    A = A.to(dtype)
    parts = _split(A, sizes, sizes)
    assert len(parts) == 14
    # a transposed-storage part and a batch-1 (broadcast) part
    r, c, blk = parts[0]
    parts[0] = (r, c, blk.transpose(1, 2).contiguous().transpose(1, 2))
    r, c, blk = parts[2]  # batch-innermost storage (an eager tangent's memory order)
    parts[2] = (r, c, blk.permute(1, 2, 0).contiguous().permute(2, 0, 1))
    r, c, blk = parts[1]
    first = blk[:1].clone()
    A[:, r : r + blk.shape[1], c : c + blk.shape[2]] = first
    parts[1] = (r, c, first)
    g = torch.Generator().manual_seed(1)
    b = torch.randn((B, 19) if k is None else (B, 19, k), dtype=torch.float64, generator=g)
    b = b.to(dtype)
    x = batched_parts_solve(parts, 19, b, simd=simd)
    assert torch.equal(x, batched_dense_solve(A, b, simd="scalar"))
    rhs = b if k is not None else b.unsqueeze(-1)
    ref = torch.linalg.solve(A.double(), rhs.double())
    got = x if k is not None else x.unsqueeze(-1)
    torch.testing.assert_close(got.double(), ref, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("k", [None, 5, 19])
def test_overwrite_b_solves_in_place(k: int | None, dtype: torch.dtype, simd: str) -> None:
    """``overwrite_b`` with a contiguous b that shares no memory with A: x is b's own memory,
    holding exactly what a new x would (the same kernel on the same entries); A is untouched."""
    A = _systems(21, 19, dtype, seed=7)
    A_before = A.clone()
    b = torch.randn((21, 19) if k is None else (21, 19, k), dtype=torch.float64).to(dtype)
    want = batched_dense_solve(A, b, simd=simd)
    assert not torch.equal(want, b)
    x = batched_dense_solve(A, b, simd=simd, overwrite_b=True)
    assert x.data_ptr() == b.data_ptr() and torch.equal(x, want)
    assert torch.equal(A, A_before)
    parts = _split(A, [6, 1, 6, 6], [6, 1, 6, 6])
    b2 = torch.randn_like(b)
    want2 = batched_parts_solve(parts, 19, b2, simd=simd)
    x2 = batched_parts_solve(parts, 19, b2, simd=simd, overwrite_b=True)
    assert x2.data_ptr() == b2.data_ptr() and torch.equal(x2, want2)


def test_overwrite_b_leaves_b_where_it_cannot() -> None:
    """b is left as it was, and x is new, when b is not contiguous, when b shares memory with
    the matrix (b a view into A's storage), and on the autograd fallback."""
    A = _systems(9, 6, torch.float64, seed=3)
    b_t = torch.randn(9, 4, 6, dtype=torch.float64).transpose(1, 2)  # (9, 6, 4), not contiguous
    before = b_t.clone()
    x = batched_dense_solve(A, b_t, overwrite_b=True)
    assert torch.equal(b_t, before) and x.data_ptr() != b_t.data_ptr()
    torch.testing.assert_close(x, torch.linalg.solve(A, before), rtol=1e-12, atol=1e-12)

    # one storage: b contiguous after A (disjoint: solved in place), or over A's first entries
    store = torch.cat([A.reshape(-1), torch.randn(54, dtype=torch.float64)])
    A_view, b_view = store[:324].view(9, 6, 6), store[324:].view(9, 6)
    want = torch.linalg.solve(A, b_view.clone())
    x = batched_dense_solve(A_view, b_view, overwrite_b=True)
    assert x.data_ptr() == b_view.data_ptr() and torch.equal(A_view, A)
    torch.testing.assert_close(x, want, rtol=1e-12, atol=1e-12)
    overlapping = store[:54].view(9, 6)
    want = torch.linalg.solve(A, overlapping.clone())
    halves = [(0, 0, A_view[:, :, :3]), (0, 3, A_view[:, :, 3:])]
    for x in (
        batched_dense_solve(A_view, overlapping, overwrite_b=True),
        batched_parts_solve(halves, 6, overlapping, overwrite_b=True),
    ):
        assert x.data_ptr() != overlapping.data_ptr() and torch.equal(A_view, A)
        torch.testing.assert_close(x, want, rtol=1e-12, atol=1e-12)

    leaf = A.clone().requires_grad_(True)
    b = torch.randn(9, 6, dtype=torch.float64)
    before = b.clone()
    x = batched_dense_solve(leaf, b, overwrite_b=True)
    assert x.requires_grad and torch.equal(b, before)


def test_parts_solve_fallback_assembles() -> None:
    """Autograd inputs take at::linalg_solve on the assembled matrix (differentiable)."""
    A = _systems(3, 4, torch.float64, seed=2)
    parts = _split(A, [2, 2], [1, 3])
    leaf = parts[0][2].clone().requires_grad_(True)
    parts[0] = (parts[0][0], parts[0][1], leaf)
    b = torch.randn(3, 4, dtype=torch.float64)
    x = batched_parts_solve(parts, 4, b)
    torch.testing.assert_close(x, torch.linalg.solve(A, b), rtol=1e-12, atol=1e-12)
    assert x.requires_grad


@pytest.mark.parametrize(
    ("parts", "n", "b", "match"),
    [
        ([(0, 0, torch.ones(2, 3, 3))], 2, torch.ones(2, 2), r"part 0 \(2, 3, 3\) at row 0"),
        ([(1, -1, torch.ones(2, 1, 1))], 2, torch.ones(2, 2), "does not fit an 2 x 2 matrix"),
        ([(0, 0, torch.ones(3, 1, 1))], 2, torch.ones(2, 2), r"must be \(B, rows, cols\) with B = 2"),
        ([(0, 0, torch.ones(2, 1))], 2, torch.ones(2, 2), r"part 0 must be \(B, rows, cols\)"),
        ([(0, 0, torch.ones(2, 1, 1, dtype=torch.float32))], 2, torch.ones(2, 2, dtype=torch.float64), "part 0 has dtype Float"),
        ([], 3, torch.ones(2, 2), r"b must be \(B, 3\)"),
    ],
)  # fmt: skip
def test_parts_solve_bad_inputs(parts: list[Any], n: int, b: torch.Tensor, match: str) -> None:
    with pytest.raises(FatalError, match=match):
        batched_parts_solve(parts, n, b)


@pytest.mark.parametrize("B", [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 50])
@pytest.mark.parametrize("n", [2, 19, 25])
@pytest.mark.parametrize("k", [1, 5, 9])
def test_every_batch_size_on_every_path(B: int, n: int, k: int, dtype: torch.dtype) -> None:
    """Batches around every lane width (4, 8, 16 elements) with one, several and more than
    kRhsChunk right-hand sides: every path equals the scalar one bit for bit and torch.linalg
    to rounding (the batch size and k decide the lane scratch, which overflowed on AVX2)."""
    A = _systems(B, n, dtype, seed=B * 100 + n)
    g = torch.Generator().manual_seed(k)
    b = torch.randn(B, n, k, dtype=torch.float64, generator=g).to(dtype)
    scalar = batched_dense_solve(A, b, simd="scalar")
    ref = torch.linalg.solve(A.double(), b.double())
    torch.testing.assert_close(scalar.double(), ref, rtol=_tol(dtype), atol=_tol(dtype))
    for path in PATHS:
        assert torch.equal(batched_dense_solve(A, b, simd=path), scalar), path


def test_process_path_is_supported() -> None:
    """``NEML2_SIMD`` (or auto) resolves to a path this CPU runs; the default call takes it."""
    assert PATHS[0] == "scalar"
    assert simd_path() in PATHS
    A = _systems(9, 6, torch.float64, seed=3)
    b = torch.randn(9, 6, 2, dtype=torch.float64)
    assert torch.equal(batched_dense_solve(A, b), batched_dense_solve(A, b, simd=simd_path()))


@pytest.mark.parametrize("path", ["avx2", "avx512"])
def test_unsupported_or_unknown_path_is_refused(path: str) -> None:
    A, b = torch.eye(3, dtype=torch.float64).expand(4, 3, 3), torch.ones(4, 3, dtype=torch.float64)
    with pytest.raises(FatalError, match="unknown SIMD path 'sse2'"):
        batched_dense_solve(A, b, simd="sse2")
    if path not in PATHS:
        with pytest.raises(FatalError, match=f"the {path} path is not available on this CPU"):
            batched_dense_solve(A, b, simd=path)
