"""Shared machinery of the matrix-free Krylov solvers (GMRES, BiCGStab).

Systems are solved on flat ``(*B, N)`` vectors, every batch element independently;
element ``e`` has converged when ``‖b_e − A_e x_e‖ ≤ max(abs_tol, rel_tol·‖b_e‖)``.
An unconverged solve is logged on the ``linear`` channel, never raised: the
nonlinear solver judges the step. Preconditioner rebuild policy
(``cache_strategy``): ``none`` rebuilds for every solve, ``chord`` builds once per
nonlinear solve, ``max_its`` rebuilds after a solve that needed more than
``cache_max_its`` iterations.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import torch

from neml2 import log
from neml2.es import AssembledVector
from neml2.schema import HitSchema, dependency, option
from neml2.solvers._preconditioners import NoPreconditioner, Preconditioner
from neml2.solvers._protocol import LinearOperator, LinearSolver

CACHE_STRATEGIES = ("none", "chord", "max_its")
FlatOp = Callable[[torch.Tensor], torch.Tensor]


@dataclass
class KrylovResult:
    """Outcome of a flat Krylov solve."""

    x: torch.Tensor
    iterations: int
    converged: torch.Tensor
    residual_norm: torch.Tensor


def safe_div(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a / b`` with ``0`` where ``b == 0`` (breakdown of an already solved element)."""
    zero = b == 0
    return torch.where(zero, torch.zeros_like(a), a / torch.where(zero, torch.ones_like(b), b))


def vnorm(x: torch.Tensor) -> torch.Tensor:
    """Per-element Euclidean norm over the last axis."""
    n: torch.Tensor = torch.linalg.vector_norm(x, dim=-1)
    return n


def vdot(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Per-element inner product over the last axis."""
    return (x * y).sum(dim=-1)


def krylov_options() -> HitSchema:
    """The options GMRES and BiCGStab share."""
    return HitSchema(
        option("max_its", int, "Maximum number of Krylov iterations", default=1000),
        option("abs_tol", float, "Absolute tolerance on the linear residual norm", default=0.0),
        option(
            "rel_tol", float, "Tolerance on the linear residual norm relative to |b|", default=1e-4
        ),
        dependency(
            "preconditioner", "get_solver", "Preconditioner block (default: none)", default=None
        ),
        option(
            "cache_strategy",
            str,
            "Preconditioner rebuild policy: none, chord or max_its",
            default="none",
        ),
        option(
            "cache_max_its",
            int,
            "Rebuild after a solve that needed more iterations (max_its strategy)",
            default=10,
        ),
    )


class KrylovSolver(LinearSolver):
    """Base of the batched Krylov solvers: options, preconditioner caching, logging."""

    matrix_free = True
    NAME = "Krylov"

    def __init__(
        self,
        *,
        max_its: int = 1000,
        abs_tol: float = 0.0,
        rel_tol: float = 1e-4,
        preconditioner: Preconditioner | None = None,
        cache_strategy: str = "none",
        cache_max_its: int = 10,
    ) -> None:
        if max_its < 1:
            raise ValueError(f"{self.NAME}: max_its must be >= 1, got {max_its}")
        if abs_tol < 0 or rel_tol < 0:
            raise ValueError(
                f"{self.NAME}: abs_tol and rel_tol must be >= 0, got {abs_tol}, {rel_tol}"
            )
        if cache_strategy not in CACHE_STRATEGIES:
            raise ValueError(
                f"{self.NAME}: cache_strategy must be one of {', '.join(CACHE_STRATEGIES)}, "
                f"got {cache_strategy!r}"
            )
        if cache_max_its < 0:
            raise ValueError(f"{self.NAME}: cache_max_its must be >= 0, got {cache_max_its}")
        if preconditioner is not None and not isinstance(preconditioner, Preconditioner):
            raise TypeError(
                f"{self.NAME}: preconditioner must be a preconditioner (e.g. "
                f"JacobiPreconditioner), got {type(preconditioner).__name__}"
            )
        self.max_its = max_its
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.preconditioner = preconditioner if preconditioner is not None else NoPreconditioner()
        self.cache_strategy = cache_strategy
        self.cache_max_its = cache_max_its
        self.setup_count = 0
        self.last_iterations = 0
        self._built = False

    def reset(self) -> None:
        """Drop the cached preconditioner (start of a nonlinear solve)."""
        self._built = False
        self.last_iterations = 0

    def _refresh_preconditioner(self, A: LinearOperator) -> None:
        if not self.preconditioner.needs_matrix:
            return
        rebuild = (
            not self._built
            or self.cache_strategy == "none"
            or (self.cache_strategy == "max_its" and self.last_iterations > self.cache_max_its)
        )
        if rebuild:
            self.preconditioner.setup(A.matrix())
            self._built = True
            self.setup_count += 1

    def solve(self, A: LinearOperator, b: AssembledVector) -> AssembledVector:
        """``x`` with ``A x ≈ b`` through ``A.matvec`` (assembled only for a preconditioner)."""
        self._refresh_preconditioner(A)
        cols = A.col_layout

        def matvec(x: torch.Tensor) -> torch.Tensor:
            return A.matvec(AssembledVector.from_flat(cols, x)).flat()

        res = self.solve_flat(matvec, b.flat(), self.preconditioner.apply)
        return AssembledVector.from_flat(cols, res.x)

    def solve_flat(
        self, matvec: FlatOp, b: torch.Tensor, precond: FlatOp | None = None
    ) -> KrylovResult:
        """Solve ``A x = b`` for flat ``b (*B, N)`` given ``x ↦ A x`` (and ``M⁻¹``)."""
        res = self._iterate(matvec, b, precond if precond is not None else (lambda r: r))
        self.last_iterations = res.iterations
        if log.enabled("linear", log.INFO):
            ok, worst = torch.stack(
                (res.converged.all().to(b.dtype), res.residual_norm.max())
            ).tolist()
            state = "converged" if ok else "did NOT converge"
            log.emit(
                "linear",
                log.INFO,
                f"{self.NAME} {state} in {res.iterations} iterations (max |r| = {worst:e})",
            )
        return res

    def tolerance(self, b: torch.Tensor) -> torch.Tensor:
        """Per-element target ``max(abs_tol, rel_tol·‖b‖)``."""
        return torch.clamp(self.rel_tol * vnorm(b), min=self.abs_tol)

    @abstractmethod
    def _iterate(self, matvec: FlatOp, b: torch.Tensor, precond: FlatOp) -> KrylovResult:
        """The Krylov iteration proper."""
