"""Nonlinear and linear solvers, the recoverable ``ConvergenceError`` and solve records."""

from neml2.solvers._bicgstab import BiCGStab as BiCGStab
from neml2.solvers._dense_lu import DenseLU as DenseLU
from neml2.solvers._errors import (
    CAPTURE_ENV_VAR as CAPTURE_ENV_VAR,
    ConvergenceError as ConvergenceError,
    NonlinearResult as NonlinearResult,
    RetCode as RetCode,
    capture_solve_failure as capture_solve_failure,
    is_truthy as is_truthy,
)
from neml2.solvers._gmres import GMRES as GMRES
from neml2.solvers._krylov import (
    CACHE_STRATEGIES as CACHE_STRATEGIES,
    KrylovResult as KrylovResult,
    KrylovSolver as KrylovSolver,
)
from neml2.solvers._lu_cache import LUCache as LUCache
from neml2.solvers._newton import MaskedSolveResult as MaskedSolveResult, Newton as Newton
from neml2.solvers._newton_linesearch import NewtonWithLineSearch as NewtonWithLineSearch
from neml2.solvers._preconditioners import (
    BlockJacobiPreconditioner as BlockJacobiPreconditioner,
    FullPreconditioner as FullPreconditioner,
    JacobiPreconditioner as JacobiPreconditioner,
    NoPreconditioner as NoPreconditioner,
    Preconditioner as Preconditioner,
)
from neml2.solvers._protocol import (
    CombinedProblem as CombinedProblem,
    DirectSolver as DirectSolver,
    LinearOperator as LinearOperator,
    LinearSolver as LinearSolver,
    MatrixFreeProblem as MatrixFreeProblem,
    NonlinearProblem as NonlinearProblem,
    ProblemOperator as ProblemOperator,
)
from neml2.solvers._schur import SchurComplement as SchurComplement

__all__ = [
    "CACHE_STRATEGIES",
    "CAPTURE_ENV_VAR",
    "GMRES",
    "BiCGStab",
    "BlockJacobiPreconditioner",
    "CombinedProblem",
    "ConvergenceError",
    "DenseLU",
    "DirectSolver",
    "FullPreconditioner",
    "JacobiPreconditioner",
    "KrylovResult",
    "KrylovSolver",
    "LUCache",
    "LinearOperator",
    "LinearSolver",
    "MaskedSolveResult",
    "MatrixFreeProblem",
    "Newton",
    "NewtonWithLineSearch",
    "NoPreconditioner",
    "NonlinearProblem",
    "NonlinearResult",
    "Preconditioner",
    "ProblemOperator",
    "RetCode",
    "SchurComplement",
    "capture_solve_failure",
    "is_truthy",
]
