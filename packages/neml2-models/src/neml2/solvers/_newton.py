"""``Newton``: the nonlinear iteration controller every Python route uses.

Throwing solve (:meth:`Newton.solve`), under ``torch.no_grad()`` and in the solver's native
workspace (:func:`neml2._native.native_workspace`: the tangent sums of one iteration, and of the
next solve, reuse the memory of the previous one's):

1. ``b0 = -r(u0)``, ``‖b0‖`` per batch element; non-finite → diverged at iter 0;
2. all elements converged (``‖b‖ < atol or ‖b‖/‖b0‖ < rtol``) → return, 0 iterations;
3. for ``i = 1 … max_its−1``: ``du = A⁻¹ b``, update (plain step or line search),
   new ``b``; any non-finite norm → ``ConvergenceError`` (diverged at iter ``i``);
   all converged → return ``i``;
4. otherwise ``ConvergenceError`` (iteration cap).

One host sync per iteration carries the finite and the converged flag, and a prediction
that the next iterate converges (last contraction extrapolated): such an iterate is evaluated
residual first, its Jacobian only if still needed, so a combined problem does not assemble the
Jacobian at the solution.
:meth:`Newton.solve_masked` never throws; it freezes converged rows (see there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import torch

from neml2 import log
from neml2._native import native_workspace, release_native_workspace
from neml2._registry import register_neml2_object
from neml2.es import AssembledMatrix, AssembledVector
from neml2.schema import HitSchema, dependency, option
from neml2.solvers import _rules as rules
from neml2.solvers._dense_lu import DenseLU
from neml2.solvers._errors import (
    ConvergenceError,
    NonlinearResult,
    RetCode,
    capture_solve_failure,
)
from neml2.solvers._hit import HitObject
from neml2.solvers._protocol import (
    CombinedProblem,
    LinearOperator,
    LinearSolver,
    MatrixFreeProblem,
    NonlinearProblem,
    ProblemOperator,
)


@dataclass
class MaskedSolveResult:
    """Outcome of :meth:`Newton.solve_masked`."""

    u: AssembledVector
    converged: torch.Tensor
    iterations: int


class Trace:
    """Newton's log lines: emitted on channel ``newton`` or collected (``collect_log``)."""

    __slots__ = ("collect", "debug_on", "info_on", "lines")

    def __init__(self, collect: bool) -> None:
        self.collect = collect
        self.lines: list[str] = []
        self.info_on = log.enabled("newton", log.INFO)
        self.debug_on = log.enabled("newton", log.DEBUG)

    def write(self, level: int, msg: str) -> None:
        """Emit (or collect) one line; callers check ``info_on``/``debug_on`` first."""
        if self.collect:
            self.lines.append(log.format_line("newton", level, msg))
        else:
            log.emit("newton", level, msg)


class Evaluator:
    """How one solve evaluates its problem: combined ``(b, A)``, separate, or matrix-free."""

    __slots__ = ("combined", "lazy", "matrix_free", "problem")

    def __init__(self, problem: NonlinearProblem, linear_solver: LinearSolver) -> None:
        self.problem = problem
        self.matrix_free = linear_solver.matrix_free and isinstance(problem, MatrixFreeProblem)
        self.combined = not self.matrix_free and isinstance(problem, CombinedProblem)
        # set when the next iterate is predicted converged: evaluate its residual alone and
        # the Jacobian only if it is needed after all (saves the Jacobian at the solution)
        self.lazy = False

    def residual(self, u: AssembledVector) -> AssembledVector:
        """``b(u)`` alone (line-search trials)."""
        return self.problem.residual(u)

    def point(self, u: AssembledVector) -> tuple[AssembledVector, AssembledMatrix | None]:
        """``b(u)``, plus ``A(u)`` when the problem computes both in one pass."""
        if self.combined and not self.lazy:
            assert isinstance(self.problem, CombinedProblem)
            return self.problem.residual_and_jacobian(u)
        return self.problem.residual(u), None

    def operator(
        self, u: AssembledVector, b: AssembledVector, A: AssembledMatrix | None
    ) -> LinearOperator:
        """The Jacobian at ``u`` for the linear solve (reusing ``A`` if already computed)."""
        if A is not None:
            return A
        if self.matrix_free:
            assert isinstance(self.problem, MatrixFreeProblem)
            return ProblemOperator(self.problem, u, b.layout)
        return self.problem.jacobian(u)


def _max(t: torch.Tensor) -> float:
    return float(t.max().item())


@register_neml2_object("Newton")
class Newton(HitObject):
    """Newton–Raphson with per-element convergence all-reduced over the batch."""

    NAME = "Newton"
    hit = HitSchema(
        dependency(
            "linear_solver",
            "get_solver",
            "Linear solver for the Newton step (default DenseLU)",
            default=None,
        ),
        option("abs_tol", float, "Absolute tolerance on the residual norm", default=1e-10),
        option(
            "rel_tol",
            float,
            "Tolerance on the residual norm relative to the initial one",
            default=1e-8,
        ),
        option("max_its", int, "Iteration cap (at most max_its - 1 Newton updates)", default=25),
        option(
            "substep_del_tol",
            float,
            "Step-size gate of the masked (substepping) convergence test",
            default=1e-6,
        ),
    )

    def __init__(
        self,
        linear_solver: LinearSolver | None = None,
        abs_tol: float = 1e-10,
        rel_tol: float = 1e-8,
        max_its: int = 25,
        substep_del_tol: float = 1e-6,
        *,
        collect_log: bool = False,
    ) -> None:
        for key, val in (
            ("abs_tol", abs_tol),
            ("rel_tol", rel_tol),
            ("substep_del_tol", substep_del_tol),
        ):
            if not val >= 0.0:
                raise ValueError(f"{self.NAME}: {key} must be >= 0, got {val!r}")
        if max_its < 1:
            raise ValueError(f"{self.NAME}: max_its must be >= 1, got {max_its}")
        if linear_solver is not None and not isinstance(linear_solver, LinearSolver):
            raise TypeError(
                f"{self.NAME}: linear_solver must be a linear solver, got "
                f"{type(linear_solver).__name__}"
            )
        self.linear_solver: LinearSolver = linear_solver if linear_solver is not None else DenseLU()
        self.abs_tol = float(abs_tol)
        self.rel_tol = float(rel_tol)
        self.max_its = int(max_its)
        self.substep_del_tol = float(substep_del_tol)
        self.collect_log = collect_log

    def release_workspace(self) -> None:
        """Free the native workspace memory this solver keeps between solves (up to 128 MiB of
        reused tangent buffers; see :func:`neml2._native.native_workspace`)."""
        release_native_workspace(self)

    # ------------------------------------------------------------------ steps
    def _update(
        self,
        ev: Evaluator,
        u: AssembledVector,
        b: AssembledVector,
        du: AssembledVector,
        trace: Trace,
    ) -> tuple[AssembledVector, AssembledVector, AssembledMatrix | None]:
        """Take the step ``du`` (plain Newton: the full step); return new ``u``, ``b`` (and ``A``)."""
        u_new = u + du
        return (u_new, *ev.point(u_new))

    # ----------------------------------------------------------------- solves
    def solve(
        self, problem: NonlinearProblem, u0: AssembledVector
    ) -> tuple[AssembledVector, NonlinearResult]:
        """Solve ``r(u) = 0`` from ``u0``; raise :class:`ConvergenceError` on failure."""
        with torch.no_grad(), native_workspace(self):
            return self._solve(problem, u0)

    def _solve(
        self, problem: NonlinearProblem, u0: AssembledVector
    ) -> tuple[AssembledVector, NonlinearResult]:
        trace = Trace(self.collect_log)
        atol, rtol = self.abs_tol, self.rel_tol
        ev = Evaluator(problem, self.linear_solver)
        self.linear_solver.reset()
        if trace.info_on:
            trace.write(log.INFO, "---- begin newton solve ----")
        u = u0
        b, A = ev.point(u)
        nb0 = b.norm()
        nb = nb0
        tau = rules.threshold(nb0, atol, rtol)
        finite, conv = rules.status_flags(nb, tau)
        likely = False
        i = 0
        while True:
            if trace.debug_on:
                trace.write(
                    log.DEBUG, f"ITERATION {i:3d}, |R| = {_max(nb):e}, |R0| = {_max(nb0):e}"
                )
            if not finite:
                msg = rules.diverged_message(i, _max(nb0))
                self._finish(trace, f"diverged at iter {i} (non-finite residual)")
                self._raise(msg, RetCode.FAILURE, problem, u0)
            if conv:
                if trace.info_on:
                    reason = rules.convergence_reason(nb, nb0, atol, rtol)
                    what = (
                        f"converged at predictor (iters=0, reason={reason})"
                        if i == 0
                        else f"converged (iters={i}, reason={reason})"
                    )
                    self._finish(trace, what)
                return u, NonlinearResult(RetCode.SUCCESS, i, trace.lines)
            i += 1
            if i >= self.max_its:
                break
            du = self.linear_solver.solve(ev.operator(u, b, A), b)
            ev.lazy = likely
            u, b, A = self._update(ev, u, b, du, trace)
            nb_prev, nb = nb, b.norm()
            finite, conv, likely = rules.status_flags_predicted(nb, nb_prev, tau)
        nb_max, nb0_max = _max(nb), _max(nb0)
        self._finish(
            trace, f"NOT converged (iters={i - 1}, max |R| = {nb_max:e}, |R0| = {nb0_max:e})"
        )
        self._raise(
            rules.maxiter_message(self.max_its, nb_max, nb0_max, atol, rtol),
            RetCode.MAXITER,
            problem,
            u0,
        )

    @staticmethod
    def _finish(trace: Trace, what: str) -> None:
        if trace.info_on:
            trace.write(log.INFO, what)
            trace.write(log.INFO, "---- end newton solve ----")

    def _raise(
        self, msg: str, ret: RetCode, problem: NonlinearProblem, u0: AssembledVector
    ) -> NoReturn:
        err = ConvergenceError(msg, ret=ret)
        if capture_solve_failure():
            masked = self._solve_masked(problem, u0)
            err.converged_mask = masked.converged
            err.unknowns = masked.u
        raise err

    def solve_masked(self, problem: NonlinearProblem, u0: AssembledVector) -> MaskedSolveResult:
        """Solve without throwing; return the per-element converged mask.

        An element converges when ``‖b‖ < atol``, or ``‖b‖/‖b0‖ < rtol`` and
        ``‖du‖ < substep_del_tol·(‖u‖ + atol)`` (at the guess only the absolute test
        can pass). Converged and non-finite rows are frozen (step zeroed, values kept),
        so with a direct linear solver each row ends bit-identical to solving it alone
        (Krylov iteration counts depend on the whole batch).
        """
        with torch.no_grad(), native_workspace(self):
            return self._solve_masked(problem, u0)

    def _solve_masked(self, problem: NonlinearProblem, u0: AssembledVector) -> MaskedSolveResult:
        trace = Trace(collect=True)
        atol, rtol, dtol = self.abs_tol, self.rel_tol, self.substep_del_tol
        ev = Evaluator(problem, self.linear_solver)
        self.linear_solver.reset()
        u = u0
        b, A = ev.point(u)
        nb0 = b.norm()
        conv = nb0 < atol
        frozen = conv | ~torch.isfinite(nb0)
        its = 0
        for _ in range(1, self.max_its):
            if bool(frozen.all()):
                break
            active = ~frozen
            du = self.linear_solver.solve(ev.operator(u, b, A), b)
            du = du.where(active, du.zeros_like())
            u_new, b_new, A = self._update(ev, u, b, du, trace)
            u = u_new.where(active, u)
            b = b_new.where(active, b)
            its += 1
            nb = b.norm()
            ok = rules.masked_converged(nb, nb0, du.norm(), u.norm(), atol, rtol, dtol)
            conv = conv | (ok & active)
            frozen = conv | ~torch.isfinite(nb)
        return MaskedSolveResult(u, conv, its)
