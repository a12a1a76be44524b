"""Nonlinear and linear solvers, the recoverable ``ConvergenceError`` and solve records."""

from neml2.solvers._bicgstab import BiCGStab as BiCGStab
from neml2.solvers._dense_lu import DenseLU as DenseLU
from neml2.solvers._errors import CAPTURE_ENV_VAR as CAPTURE_ENV_VAR
from neml2.solvers._errors import ConvergenceError as ConvergenceError
from neml2.solvers._errors import NonlinearResult as NonlinearResult
from neml2.solvers._errors import RetCode as RetCode
from neml2.solvers._errors import capture_solve_failure as capture_solve_failure
from neml2.solvers._errors import is_truthy as is_truthy
from neml2.solvers._gmres import GMRES as GMRES
from neml2.solvers._krylov import CACHE_STRATEGIES as CACHE_STRATEGIES
from neml2.solvers._krylov import KrylovResult as KrylovResult
from neml2.solvers._krylov import KrylovSolver as KrylovSolver
from neml2.solvers._lu_cache import LUCache as LUCache
from neml2.solvers._newton import MaskedSolveResult as MaskedSolveResult
from neml2.solvers._newton import Newton as Newton
from neml2.solvers._newton_linesearch import NewtonWithLineSearch as NewtonWithLineSearch
from neml2.solvers._preconditioners import (
    BlockJacobiPreconditioner as BlockJacobiPreconditioner,
)
from neml2.solvers._preconditioners import FullPreconditioner as FullPreconditioner
from neml2.solvers._preconditioners import JacobiPreconditioner as JacobiPreconditioner
from neml2.solvers._preconditioners import NoPreconditioner as NoPreconditioner
from neml2.solvers._preconditioners import Preconditioner as Preconditioner
from neml2.solvers._protocol import CombinedProblem as CombinedProblem
from neml2.solvers._protocol import DirectSolver as DirectSolver
from neml2.solvers._protocol import LinearOperator as LinearOperator
from neml2.solvers._protocol import LinearSolver as LinearSolver
from neml2.solvers._protocol import MatrixFreeProblem as MatrixFreeProblem
from neml2.solvers._protocol import NonlinearProblem as NonlinearProblem
from neml2.solvers._protocol import ProblemOperator as ProblemOperator
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
