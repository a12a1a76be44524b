"""GMRES and BiCGStab with every preconditioner and cache strategy."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from neml2 import log
from neml2.es import AssembledMatrix, AssembledVector, AxisGroup, AxisLayout, VariableInfo
from neml2.solvers import (
    GMRES,
    BiCGStab,
    BlockJacobiPreconditioner,
    FullPreconditioner,
    JacobiPreconditioner,
    KrylovSolver,
    NoPreconditioner,
    Preconditioner,
)

S = 2
PRECONDITIONERS = [
    NoPreconditioner,
    JacobiPreconditioner,
    BlockJacobiPreconditioner,
    FullPreconditioner,
]


def _layout() -> AxisLayout:
    return AxisLayout(
        [
            AxisGroup((VariableInfo("a", (3,)), VariableInfo("b", (), (2,))), "dense"),
            AxisGroup((VariableInfo("c", (2,), (S,)),), "block"),
        ]
    )


def _system(dtype: torch.dtype, device: torch.device, batch: int = 6, seed: int = 0):  # type: ignore[no-untyped-def]
    """Nonsymmetric, diagonally dominant with badly scaled rows (so preconditioning matters)."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    L = _layout()
    scale = torch.logspace(0, 3, 5, dtype=torch.float64)
    a00 = 0.3 * r(batch, 5, 5) + torch.diag(scale) * 2
    a01 = 0.2 * r(batch, S, 5, 2)
    a10 = 0.2 * r(batch, S, 2, 5)
    a11 = 0.3 * r(batch, S, 2, 2) + 3 * torch.eye(2, dtype=torch.float64)
    to: dict[str, Any] = {"dtype": dtype, "device": device}
    A = AssembledMatrix(L, L, [[a00.to(**to), a01.to(**to)], [a10.to(**to), a11.to(**to)]])
    b = AssembledVector.from_flat(L, r(batch, L.flat_size).to(**to))
    return A, b


def _rtol(dtype: torch.dtype) -> float:
    return 1e-5 if dtype == torch.float32 else 1e-11


def _make(kind: str, precond: Preconditioner, dtype: torch.dtype, **kw) -> KrylovSolver:  # type: ignore[no-untyped-def]
    if kind == "gmres":
        return GMRES(restart=4, rel_tol=_rtol(dtype), preconditioner=precond, **kw)
    return BiCGStab(rel_tol=_rtol(dtype), preconditioner=precond, **kw)


@pytest.mark.parametrize("kind", ["gmres", "bicgstab"])
@pytest.mark.parametrize("precond", PRECONDITIONERS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("cache", ["none", "chord", "max_its"])
def test_solves_to_tolerance_and_matches_dense(
    kind: str, precond: type[Preconditioner], cache: str, device: torch.device, dtype: torch.dtype
) -> None:
    A, b = _system(dtype, device)
    solver = _make(kind, precond(), dtype, cache_strategy=cache)
    solver.reset()
    x = solver.solve(A, b)
    res = (A.matvec(x) - b).norm()
    assert bool((res <= 1.01 * _rtol(dtype) * b.norm()).all()), (res / b.norm()).max()
    ref = torch.linalg.solve(A.to_dense().double(), b.flat().double())
    cond_tol = 1e-2 if dtype == torch.float32 else 1e-7
    torch.testing.assert_close(x.flat().double(), ref, rtol=cond_tol, atol=cond_tol)


def test_gmres_restarts_and_iteration_cap(device: torch.device, dtype: torch.dtype) -> None:
    A, b = _system(dtype, device)
    capped = GMRES(restart=3, max_its=5, rel_tol=_rtol(dtype))
    res = capped.solve_flat(
        lambda v: A.matvec(AssembledVector.from_flat(A.col_layout, v)).flat(), b.flat()
    )
    assert res.iterations == 5
    assert not bool(res.converged.all())
    # the residual estimate equals the true residual of the returned iterate
    true = torch.linalg.vector_norm(
        b.flat() - A.matvec(AssembledVector.from_flat(A.col_layout, res.x)).flat(), dim=-1
    )
    torch.testing.assert_close(res.residual_norm, true)
    full = GMRES(restart=3, rel_tol=_rtol(dtype)).solve_flat(
        lambda v: A.matvec(AssembledVector.from_flat(A.col_layout, v)).flat(), b.flat()
    )
    assert bool(full.converged.all()) and full.iterations > 3  # needed a restart


def test_zero_rhs_and_unpreconditioned_identity(device: torch.device, dtype: torch.dtype) -> None:
    L = AxisLayout.build([[("x", (3,))]])
    A = AssembledMatrix(L, L, [[torch.eye(3, dtype=dtype, device=device) * 2]])
    b = AssembledVector(L, [torch.zeros(2, 3, dtype=dtype, device=device)])
    for solver in (GMRES(), BiCGStab()):
        x = solver.solve(A, b)
        assert torch.count_nonzero(x.tensors[0]) == 0
        assert solver.last_iterations == 0


class _CountingOperator:
    """A matrix-free operator that counts matvecs and assemblies."""

    def __init__(self, A: AssembledMatrix) -> None:
        self.A = A
        self.row_layout = A.row_layout
        self.col_layout = A.col_layout
        self.matvecs = 0
        self.assemblies = 0

    def matvec(self, x: AssembledVector) -> AssembledVector:
        self.matvecs += 1
        return self.A.matvec(x)

    def matrix(self) -> AssembledMatrix:
        self.assemblies += 1
        return self.A


def test_matrix_free_without_preconditioner_never_assembles(
    device: torch.device, dtype: torch.dtype
) -> None:
    A, b = _system(dtype, device)
    for solver in (GMRES(rel_tol=_rtol(dtype)), BiCGStab(rel_tol=_rtol(dtype))):
        op = _CountingOperator(A)
        x = solver.solve(op, b)
        assert op.assemblies == 0 and op.matvecs > 0
        assert bool(((A.matvec(x) - b).norm() <= 1.01 * _rtol(dtype) * b.norm()).all())


def test_gmres_first_cycle_skips_initial_matvec(device: torch.device, dtype: torch.dtype) -> None:
    L = AxisLayout.build([[("x", (4,))]])
    A = AssembledMatrix(L, L, [[torch.diag(torch.tensor([1.0, 2.0, 3.0, 4.0])).to(device, dtype)]])
    b = AssembledVector(L, [torch.ones(1, 4, dtype=dtype, device=device)])
    op = _CountingOperator(A)
    GMRES(rel_tol=_rtol(dtype)).solve(op, b)
    # 4 distinct eigenvalues: 4 Arnoldi matvecs + 1 true-residual matvec at the cycle end
    assert op.matvecs == 5


@pytest.mark.parametrize(
    ("cache", "cache_max_its", "expected"),
    [("none", 10, 3), ("chord", 10, 1), ("max_its", 1000, 1), ("max_its", 0, 3)],
)
def test_preconditioner_cache_strategy(
    cache: str, cache_max_its: int, expected: int, device: torch.device, dtype: torch.dtype
) -> None:
    solver = GMRES(
        rel_tol=_rtol(dtype),
        preconditioner=JacobiPreconditioner(),
        cache_strategy=cache,
        cache_max_its=cache_max_its,
    )
    solver.reset()
    for seed in range(3):
        A, b = _system(dtype, device, seed=seed)
        op = _CountingOperator(A)
        solver.solve(op, b)
    assert solver.setup_count == expected
    solver.reset()
    solver.solve(_CountingOperator(A), b)
    assert solver.setup_count == expected + 1  # a new nonlinear solve rebuilds


def test_unconverged_solve_is_logged_not_raised(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    A, b = _system(torch.float64, torch.device("cpu"))
    monkeypatch.delenv(log.ENV_VAR, raising=False)
    log.reset()
    log.set_default_level("linear", "info")
    try:
        GMRES(restart=2, max_its=2, rel_tol=1e-12).solve(A, b)
    finally:
        log.reset()
    out = capsys.readouterr().out
    assert out.startswith(
        "[neml2:linear ][info] GMRES did NOT converge in 2 iterations (max |r| = "
    )


def test_option_errors() -> None:
    with pytest.raises(ValueError, match="GMRES: restart must be >= 1"):
        GMRES(restart=0)
    with pytest.raises(
        ValueError, match="BiCGStab: cache_strategy must be one of none, chord, max_its"
    ):
        BiCGStab(cache_strategy="always")
    with pytest.raises(ValueError, match="BiCGStab: max_its must be >= 1"):
        BiCGStab(max_its=0)
    with pytest.raises(RuntimeError, match="JacobiPreconditioner: apply\\(\\) called before setup"):
        JacobiPreconditioner().apply(torch.ones(3))
