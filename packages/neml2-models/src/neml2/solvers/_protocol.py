"""The problem protocol Newton iterates on, and the linear-solver interfaces.

Sign convention: ``residual(u)`` returns ``b = -r(u)``; ``jacobian(u)`` returns
``A = ∂r/∂u``; a Newton step solves ``A du = b``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

from neml2.es import AssembledMatrix, AssembledVector, AxisLayout
from neml2.solvers._hit import HitObject


@runtime_checkable
class NonlinearProblem(Protocol):
    """A square nonlinear system ``r(u) = 0`` over assembled vectors."""

    def residual(self, u: AssembledVector) -> AssembledVector:
        """``b = -r(u)`` on the residual layout."""
        ...

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        """``A = ∂r/∂u`` (rows: residual layout, columns: unknown layout)."""
        ...


@runtime_checkable
class MatrixFreeProblem(NonlinearProblem, Protocol):
    """A problem that can apply its Jacobian without assembling it."""

    def matvec(self, u: AssembledVector, v: AssembledVector) -> AssembledVector:
        """``A(u) v``."""
        ...


@runtime_checkable
class CombinedProblem(NonlinearProblem, Protocol):
    """A problem that evaluates ``b`` and ``A`` in one pass (e.g. one model call).

    Newton then evaluates both at every new iterate (the Jacobian of the final,
    converged iterate is the only one wasted).
    """

    def residual_and_jacobian(self, u: AssembledVector) -> tuple[AssembledVector, AssembledMatrix]:
        """``(b, A)`` at ``u``."""
        ...


@runtime_checkable
class LinearOperator(Protocol):
    """Something that applies ``A`` and, on demand, assembles it."""

    row_layout: AxisLayout
    col_layout: AxisLayout

    def matvec(self, x: AssembledVector) -> AssembledVector:
        """``A x``."""
        ...

    def matrix(self) -> AssembledMatrix:
        """The assembled ``A`` (may be computed lazily)."""
        ...


class ProblemOperator:
    """The Jacobian of a matrix-free problem at ``u``, assembled only if asked."""

    __slots__ = ("_matrix", "col_layout", "problem", "row_layout", "u")

    def __init__(self, problem: MatrixFreeProblem, u: AssembledVector, rows: AxisLayout) -> None:
        self.problem = problem
        self.u = u
        self.row_layout = rows
        self.col_layout = u.layout
        self._matrix: AssembledMatrix | None = None

    def matvec(self, x: AssembledVector) -> AssembledVector:
        """``A(u) x`` through the problem's own matvec."""
        return self.problem.matvec(self.u, x)

    def matrix(self) -> AssembledMatrix:
        """``A(u)``, assembled once."""
        if self._matrix is None:
            self._matrix = self.problem.jacobian(self.u)
        return self._matrix


class LinearSolver(HitObject, ABC):
    """Solves ``A x = b``; ``matrix_free`` solvers only need ``A``'s action."""

    matrix_free: bool = False

    def reset(self) -> None:
        """Forget cached state (called at the start of every nonlinear solve)."""

    @abstractmethod
    def solve(self, A: LinearOperator, b: AssembledVector) -> AssembledVector:
        """``x`` on ``A``'s column layout with ``A x = b``."""


class DirectSolver(LinearSolver):
    """A direct solver; also solves matrix right-hand sides (implicit-function sensitivities)."""

    @abstractmethod
    def solve_matrix(
        self, A: AssembledMatrix, B: AssembledMatrix, overwrite_b: bool = False
    ) -> AssembledMatrix:
        """``X = A⁻¹ B``: rows on ``A``'s column layout, columns on ``B``'s column layout.

        ``X`` is the caller's (its tensors are new, or ``B``'s own memory). ``overwrite_b``: the
        caller no longer needs ``B``, so a solver may solve in its memory (a buffer saved per
        call; solvers that cannot simply ignore it).
        """
