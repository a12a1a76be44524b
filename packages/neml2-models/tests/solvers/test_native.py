"""DenseLU through neml2-aoti's native batched solve vs the ``torch.linalg`` path."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.autograd import forward_ad

from neml2.es import (
    AssembledMatrix,
    AssembledVector,
    AxisGroup,
    AxisLayout,
    MatrixPart,
    VariableInfo,
)
from neml2.solvers import DenseLU, _native

S = 3


@pytest.fixture
def native() -> None:
    if _native.native_dense_solve() is None:
        pytest.skip("neml2-aoti (native batched_dense_solve) is not installed")


def _tol(dtype: torch.dtype) -> dict[str, Any]:
    return (
        {"rtol": 2e-4, "atol": 2e-4} if dtype == torch.float32 else {"rtol": 1e-11, "atol": 1e-11}
    )


def _system(
    g: torch.Generator, dtype: torch.dtype, device: torch.device, *shape: int
) -> torch.Tensor:
    """Random well-conditioned matrices with permuted rows (pivoting needed)."""
    n = shape[-1]
    a = torch.randn(*shape, generator=g, dtype=torch.float64) + 2 * n * torch.eye(n)
    return a[..., torch.randperm(n, generator=g), :].to(device, dtype)


def _rand(
    g: torch.Generator, dtype: torch.dtype, device: torch.device, *shape: int
) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(device, dtype)


def _both(monkeypatch: pytest.MonkeyPatch, f: Any) -> tuple[Any, Any]:
    """``f()`` with the native kernel, then with it disabled (the torch.linalg path)."""
    fast = f()
    with monkeypatch.context() as m:
        m.setattr(_native, "native_dense_solve", lambda: None)
        slow = f()
    return fast, slow


@pytest.mark.parametrize("n", [2, 7, 19, 40])
def test_vector_rhs_paths_agree(
    native: None, monkeypatch: pytest.MonkeyPatch, n: int, device: torch.device, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(n)
    L = AxisLayout.build([[("x", (n,))]])
    A = AssembledMatrix(L, L, [[_system(g, dtype, device, 4, 5, n, n)]])
    b = AssembledVector(L, [_rand(g, dtype, device, 5, n)])  # batch broadcasts against A's
    fast, slow = _both(monkeypatch, lambda: DenseLU().solve(A, b).tensors[0])
    assert fast.shape == (4, 5, n)
    torch.testing.assert_close(fast, slow, **_tol(dtype))
    ref = torch.linalg.solve(A.blocks[0][0].double(), b.tensors[0].double().unsqueeze(-1))
    torch.testing.assert_close(fast.double(), ref.squeeze(-1), **_tol(dtype))


def test_matrix_rhs_dense_and_block_groups_agree(
    native: None, monkeypatch: pytest.MonkeyPatch, device: torch.device, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(11)
    L = AxisLayout.build([[("x", (6,))]])
    C = AxisLayout(
        [
            AxisGroup((VariableInfo("p", (2,)),), "dense"),
            AxisGroup((VariableInfo("q", (), (S,)),), "block"),
        ]
    )
    A = AssembledMatrix(L, L, [[_system(g, dtype, device, 3, 6, 6)]])
    B = AssembledMatrix(
        L, C, [[_rand(g, dtype, device, 3, 6, 2), _rand(g, dtype, device, S, 6, 1)]]
    )
    fast, slow = _both(monkeypatch, lambda: DenseLU().solve_matrix(A, B).to_dense())
    torch.testing.assert_close(fast, slow, **_tol(dtype))
    ref = torch.linalg.solve(A.to_dense().double(), B.to_dense().double())
    torch.testing.assert_close(fast.double(), ref, **_tol(dtype))


def test_block_group_per_site(
    native: None, monkeypatch: pytest.MonkeyPatch, device: torch.device, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(12)
    L = AxisLayout(
        [AxisGroup((VariableInfo("x", (2,), (S,)), VariableInfo("y", (), (S,))), "block")]
    )
    A = AssembledMatrix(L, L, [[_system(g, dtype, device, 5, S, 3, 3)]])
    b = AssembledVector(L, [_rand(g, dtype, device, 5, S, 3)])
    fast, slow = _both(monkeypatch, lambda: DenseLU().solve(A, b).flat())
    torch.testing.assert_close(fast, slow, **_tol(dtype))


def test_singular_element_is_nonfinite_on_both_paths(
    native: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = torch.Generator().manual_seed(13)
    a = _system(g, torch.float64, torch.device("cpu"), 4, 5, 5)
    a[1, 3] = a[1, 0]
    L = AxisLayout.build([[("x", (5,))]])
    A = AssembledMatrix(L, L, [[a]])
    b = AssembledVector(L, [_rand(g, torch.float64, torch.device("cpu"), 4, 5)])
    for x in _both(monkeypatch, lambda: DenseLU().solve(A, b).tensors[0]):
        assert x.isfinite().all(-1).tolist() == [True, False, True, True]


def test_native_only_where_it_is_a_drop_in(native: None) -> None:
    a, b = torch.eye(4).expand(2, 4, 4), torch.ones(2, 4, 1)
    assert _native.native_usable(a, b)
    assert _native.native_usable(a.double(), b.double())
    assert not _native.native_usable(a, b.double())
    assert not _native.native_usable(torch.eye(33).expand(2, 33, 33), torch.ones(2, 33, 1))
    assert not _native.native_usable(a.half(), b.half())
    ag = a.clone().requires_grad_(True)
    assert not _native.native_usable(ag, b)
    with torch.no_grad():
        assert _native.native_usable(ag, b)
    with forward_ad.dual_level():
        assert not _native.native_usable(a, b)
    assert not torch.vmap(lambda x: torch.tensor(_native.native_usable(x, b[0])))(a).any()


def test_autograd_through_dense_lu_uses_torch(native: None) -> None:
    g = torch.Generator().manual_seed(14)
    a = _system(g, torch.float64, torch.device("cpu"), 3, 4, 4).requires_grad_(True)
    L = AxisLayout.build([[("x", (4,))]])
    b = AssembledVector(L, [_rand(g, torch.float64, torch.device("cpu"), 3, 4)])
    x = DenseLU().solve(AssembledMatrix(L, L, [[a]]), b).tensors[0]
    (ga,) = torch.autograd.grad(x.sum(), a)
    (ref,) = torch.autograd.grad(torch.linalg.solve(a, b.tensors[0]).sum(), a)
    torch.testing.assert_close(ga, ref)


def _parts_matrix(
    g: torch.Generator, dtype: torch.dtype, device: torch.device, B: int
) -> tuple[AssembledMatrix, torch.Tensor, list[int]]:
    """A 6/1/6 three-variable system known by its parts (one block zero), its dense matrix, and
    a counter of how often the dense blocks were assembled."""
    L = AxisLayout.build([[("a", (6,)), ("s", ()), ("c", (6,))]])
    dense = _system(g, dtype, device, B, 13, 13)
    dense[:, 7:13, 0:6] = 0.0
    cuts = [(0, 6), (6, 7), (7, 13)]
    parts = [
        MatrixPart(r0, c0, dense[:, r0:r1, c0:c1].transpose(1, 2).contiguous().transpose(1, 2))
        for r0, r1 in cuts for c0, c1 in cuts if (r0, c0) != (7, 0)
    ]  # fmt: skip
    built = [0]

    def assemble() -> list[list[torch.Tensor]]:
        built[0] += 1
        return [[dense.clone()]]

    return AssembledMatrix.from_parts(L, L, parts, assemble), dense, built


def test_parts_are_solved_in_place(
    native: None, monkeypatch: pytest.MonkeyPatch, device: torch.device, dtype: torch.dtype
) -> None:
    """DenseLU reads a from_parts matrix's parts (no assembly), bit for bit as the dense path."""
    if _native.native_parts_solve() is None or device.type != "cpu":
        pytest.skip("native batched_parts_solve needs neml2-aoti on CPU")
    g = torch.Generator().manual_seed(3)
    A, dense, built = _parts_matrix(g, dtype, device, 9)
    b = AssembledVector(A.row_layout, [_rand(g, dtype, device, 9, 13)])
    x = DenseLU().solve(A, b).tensors[0]
    assert built == [0]
    ref = DenseLU().solve(AssembledMatrix(A.row_layout, A.col_layout, [[dense]]), b).tensors[0]
    assert torch.equal(x, ref)
    torch.testing.assert_close(
        x.double(), torch.linalg.solve(dense.double(), b.tensors[0].double()), **_tol(dtype)
    )


def test_parts_fall_back_to_the_assembled_blocks(
    monkeypatch: pytest.MonkeyPatch, device: torch.device, dtype: torch.dtype
) -> None:
    """Without the native kernel (or under autograd) the blocks are assembled once and solved."""
    g = torch.Generator().manual_seed(4)
    A, dense, built = _parts_matrix(g, dtype, device, 5)
    b = AssembledVector(A.row_layout, [_rand(g, dtype, device, 5, 13)])
    monkeypatch.setattr(_native, "native_parts_solve", lambda: None)
    x = DenseLU().solve(A, b).tensors[0]
    assert built == [1]
    DenseLU().solve(A, b)
    assert built == [1]  # assembled once, then kept
    torch.testing.assert_close(
        x.double(), torch.linalg.solve(dense.double(), b.tensors[0].double()), **_tol(dtype)
    )


def test_workspace_owners_that_cannot_be_keys_get_a_temporary_workspace() -> None:
    """A solver that is unhashable or not weakly referenceable still solves in a workspace (a
    temporary one); a plain owner gets its own, kept between scopes."""
    aoti = pytest.importorskip("neml2.aoti._aoti")
    from neml2 import _native as core

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

    class Slotted:
        __slots__ = ()

    terms = [(1.0, None, torch.ones(19, 2000, 6, dtype=torch.float64))]
    for owner in (Unhashable(), Slotted()):
        with core.native_workspace(owner):
            aoti.sum_of_products(terms)  # freed at once: kept by the workspace
            assert aoti.workspace_free_bytes() > 0
        assert aoti.workspace_free_bytes() == 0  # the temporary workspace ended with its scope

    class Owner:
        pass

    plain = Owner()
    with core.native_workspace(plain):
        aoti.sum_of_products(terms)
    assert core._WORKSPACES[plain].free_bytes > 0  # type: ignore[attr-defined]
    core.release_native_workspace(plain)
    assert plain not in core._WORKSPACES
