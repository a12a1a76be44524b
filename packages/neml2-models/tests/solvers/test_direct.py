"""DenseLU and SchurComplement against torch.linalg.solve of the assembled system."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from neml2.es import AssembledMatrix, AssembledVector, AxisGroup, AxisLayout, VariableInfo
from neml2.solvers import DenseLU, SchurComplement, _native

S = 3


def _tol(dtype: torch.dtype) -> dict[str, Any]:
    return (
        {"rtol": 2e-4, "atol": 2e-4} if dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-10}
    )


def _rand(
    g: torch.Generator, dtype: torch.dtype, device: torch.device, *shape: int
) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(device, dtype)


def _well_conditioned(g: torch.Generator, dtype, device, *shape: int) -> torch.Tensor:  # type: ignore[no-untyped-def]
    n = shape[-1]
    eye = torch.eye(n, dtype=dtype, device=device)
    return 0.3 * _rand(g, dtype, device, *shape) + 2 * eye


@pytest.mark.parametrize("n", [1, 4])
def test_dense_lu_dense_group(n: int, device: torch.device, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(n)
    L = AxisLayout.build([[("x", (n,))]])
    A = AssembledMatrix(L, L, [[_well_conditioned(g, dtype, device, 7, n, n)]])
    b = AssembledVector(L, [_rand(g, dtype, device, 7, n)])
    x = DenseLU().solve(A, b)
    ref = torch.linalg.solve(A.blocks[0][0], b.tensors[0])
    torch.testing.assert_close(x.tensors[0], ref, **_tol(dtype))


def test_dense_lu_block_group_is_per_site(device: torch.device, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(3)
    L = AxisLayout(
        [AxisGroup((VariableInfo("x", (2,), (S,)), VariableInfo("y", (), (S,))), "block")]
    )
    A = AssembledMatrix(L, L, [[_well_conditioned(g, dtype, device, 5, S, 3, 3)]])
    b = AssembledVector(L, [_rand(g, dtype, device, 5, S, 3)])
    x = DenseLU().solve(A, b)
    ref = torch.linalg.solve(A.to_dense(), b.flat())
    torch.testing.assert_close(x.flat(), ref, **_tol(dtype))


def test_dense_lu_matrix_rhs(device: torch.device, dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(4)
    L = AxisLayout.build([[("x", (3,))]])
    C = AxisLayout(
        [
            AxisGroup((VariableInfo("p", (2,)),), "dense"),
            AxisGroup((VariableInfo("q", (), (S,)),), "block"),
        ]
    )
    A = AssembledMatrix(L, L, [[_well_conditioned(g, dtype, device, 2, 3, 3)]])
    B = AssembledMatrix(
        L, C, [[_rand(g, dtype, device, 2, 3, 2), _rand(g, dtype, device, 2, S, 3, 1)]]
    )
    X = DenseLU().solve_matrix(A, B)
    ref = torch.linalg.solve(A.to_dense(), B.to_dense())
    torch.testing.assert_close(X.to_dense(), ref, **_tol(dtype))


@pytest.mark.parametrize("overwrite_b", [False, True])
def test_dense_lu_matrix_rhs_overwrite(
    overwrite_b: bool, device: torch.device, dtype: torch.dtype
) -> None:
    """``overwrite_b``: with the native kernel (plain CPU tensors) X is solved in B's memory;
    without it, or on another path, B keeps its values. X is A⁻¹B either way."""
    g = torch.Generator().manual_seed(6)
    L = AxisLayout.build([[("x", (5,))]])
    C = AxisLayout.build([[("p", (4,))]])
    A = AssembledMatrix(L, L, [[_well_conditioned(g, dtype, device, 9, 5, 5)]])
    rhs = _rand(g, dtype, device, 9, 5, 4)
    before = rhs.clone()
    X = DenseLU().solve_matrix(A, AssembledMatrix(L, C, [[rhs]]), overwrite_b=overwrite_b)
    ref = torch.linalg.solve(A.blocks[0][0], before)
    torch.testing.assert_close(X.blocks[0][0], ref, **_tol(dtype))
    in_place = overwrite_b and _native.native_usable(A.blocks[0][0], rhs)
    assert (X.blocks[0][0].data_ptr() == rhs.data_ptr()) == in_place
    if not in_place:
        assert torch.equal(rhs, before)


def test_dense_lu_errors() -> None:
    L2 = AxisLayout.build([[("a", (2,))], [("b", (2,))]])
    A = AssembledMatrix(L2, L2, [[torch.eye(2)] * 2] * 2)
    with pytest.raises(ValueError, match=r"single residual group .* \(use SchurComplement\)"):
        DenseLU().solve(A, AssembledVector(L2, [torch.ones(2), torch.ones(2)]))
    R = AxisLayout.build([[("r", (2,))]])
    U = AxisLayout.build([[("u", (3,))]])
    with pytest.raises(ValueError, match="not square per site"):
        DenseLU().solve(
            AssembledMatrix(R, U, [[torch.ones(2, 3)]]), AssembledVector(R, [torch.ones(2)])
        )


def _block_dense_system(dtype, device, batch: int = 4):  # type: ignore[no-untyped-def]
    g = torch.Generator().manual_seed(5)
    rows = AxisLayout(
        [
            AxisGroup((VariableInfo("r0", (2,), (S,)),), "block"),
            AxisGroup((VariableInfo("r1", (2,)),), "dense"),
        ]
    )
    cols = AxisLayout(
        [
            AxisGroup((VariableInfo("u0", (2,), (S,)),), "block"),
            AxisGroup((VariableInfo("u1", (2,)),), "dense"),
        ]
    )
    A = AssembledMatrix(
        rows,
        cols,
        [
            [
                _well_conditioned(g, dtype, device, batch, S, 2, 2),
                0.3 * _rand(g, dtype, device, batch, S, 2, 2),
            ],
            [
                0.3 * _rand(g, dtype, device, batch, S, 2, 2),
                _well_conditioned(g, dtype, device, batch, 2, 2),
            ],
        ],
    )
    b = AssembledVector(
        rows, [_rand(g, dtype, device, batch, S, 2), _rand(g, dtype, device, batch, 2)]
    )
    return A, b


def test_schur_block_dense_matches_dense_solve(device: torch.device, dtype: torch.dtype) -> None:
    A, b = _block_dense_system(dtype, device)
    x = SchurComplement(DenseLU(), DenseLU()).solve(A, b)
    ref = torch.linalg.solve(A.to_dense(), b.flat())
    torch.testing.assert_close(x.flat(), ref, **_tol(dtype))


def test_schur_matrix_rhs(device: torch.device, dtype: torch.dtype) -> None:
    A, _ = _block_dense_system(dtype, device)
    g = torch.Generator().manual_seed(9)
    C = AxisLayout.build([[("g0", (1,))], [("g1", (3,))]])
    B = AssembledMatrix(
        A.row_layout,
        C,
        [
            [_rand(g, dtype, device, 4, S, 2, 1), _rand(g, dtype, device, 4, S, 2, 3)],
            [_rand(g, dtype, device, 4, 2, 1), _rand(g, dtype, device, 4, 2, 3)],
        ],
    )
    X = SchurComplement(DenseLU(), DenseLU()).solve_matrix(A, B)
    ref = torch.linalg.solve(A.to_dense(), B.to_dense())
    torch.testing.assert_close(X.to_dense(), ref, **_tol(dtype))


def test_schur_block_rhs_through_dense_coupling_is_rejected() -> None:
    """With a dense coupling group, A⁻¹ of a per-site column couples every site."""
    A, _ = _block_dense_system(torch.float64, torch.device("cpu"))
    C = AxisLayout([AxisGroup((VariableInfo("g0", (1,), (S,)),), "block")])
    B = AssembledMatrix(A.row_layout, C, [[torch.ones(4, S, 2, 1, dtype=torch.float64)]] * 2)
    with pytest.raises(ValueError, match="couples all sites"):
        SchurComplement(DenseLU(), DenseLU()).solve_matrix(A, B)


@pytest.mark.parametrize(("rp", "up"), [(0, 0), (1, 1), (0, 1), (1, 0)])
def test_schur_primary_choice_dense_groups(
    rp: int, up: int, device: torch.device, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(10 + 2 * rp + up)
    L = AxisLayout.build([[("a", (3,))], [("b", (3,))]])
    full = _well_conditioned(g, dtype, device, 6, 6, 6)
    if rp != up:  # make the off-diagonal blocks the dominant (primary) ones
        full = torch.cat([full[..., 3:, :], full[..., :3, :]], dim=-2)
    A = AssembledMatrix(
        L, L, [[full[..., :3, :3], full[..., :3, 3:]], [full[..., 3:, :3], full[..., 3:, 3:]]]
    )
    b = AssembledVector(L, [_rand(g, dtype, device, 6, 3), _rand(g, dtype, device, 6, 3)])
    solver = SchurComplement(
        DenseLU(), DenseLU(), residual_primary_group=rp, unknown_primary_group=up
    )
    x = solver.solve(A, b)
    torch.testing.assert_close(x.flat(), torch.linalg.solve(full, b.flat()), **_tol(dtype))


def test_schur_errors() -> None:
    with pytest.raises(ValueError, match="residual_primary_group must be 0 or 1"):
        SchurComplement(DenseLU(), DenseLU(), residual_primary_group=2)
    with pytest.raises(TypeError, match="primary_solver must be a direct solver"):
        SchurComplement(object(), DenseLU())  # type: ignore[arg-type]
    L = AxisLayout.build([[("a", (2,))]])
    with pytest.raises(ValueError, match="exactly 2 residual groups"):
        SchurComplement(DenseLU(), DenseLU()).solve(
            AssembledMatrix(L, L, [[torch.eye(2)]]), AssembledVector(L, [torch.ones(2)])
        )
    A, b = _block_dense_system(torch.float64, torch.device("cpu"))
    with pytest.raises(ValueError, match="couples all sites"):
        SchurComplement(
            DenseLU(), DenseLU(), residual_primary_group=1, unknown_primary_group=1
        ).solve(A, b)


def test_lu_cache_reuses_factors_for_the_same_matrix(
    monkeypatch: pytest.MonkeyPatch, device: torch.device, dtype: torch.dtype
) -> None:
    monkeypatch.setattr(_native, "native_dense_solve", lambda: None)  # the torch.linalg path
    g = torch.Generator().manual_seed(6)
    L = AxisLayout.build([[("x", (3,))]])
    C = AxisLayout.build([[("p", (2,))]])
    a = _well_conditioned(g, dtype, device, 4, 3, 3)
    A = AssembledMatrix(L, L, [[a]])
    solver = DenseLU()
    for _ in range(3):
        B = AssembledMatrix(L, C, [[_rand(g, dtype, device, 4, 3, 2)]])
        X = solver.solve_matrix(A, B)
        ref = torch.linalg.solve(a, B.blocks[0][0])
        torch.testing.assert_close(X.blocks[0][0], ref, **_tol(dtype))
    assert solver.lu_cache.factorizations == 1
    a.mul_(2.0)  # in-place change: refactored, and the answer follows
    X = solver.solve_matrix(A, B)
    assert solver.lu_cache.factorizations == 2
    torch.testing.assert_close(X.blocks[0][0], torch.linalg.solve(a, B.blocks[0][0]), **_tol(dtype))


def test_schur_on_transposed_system(device: torch.device, dtype: torch.dtype) -> None:
    """The adjoint solve Aᵀλ = g of the implicit-function reverse mode."""
    A, b = _block_dense_system(dtype, device)
    At = A.transpose()
    g = AssembledVector.from_flat(At.row_layout, b.flat())
    lam = SchurComplement(DenseLU(), DenseLU()).solve(At, g)
    ref = torch.linalg.solve(A.to_dense().transpose(-1, -2), b.flat())
    torch.testing.assert_close(lam.flat(), ref, **_tol(dtype))
