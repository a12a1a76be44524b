"""``NewtonWithLineSearch``: Newton with a per-element backtracking line search.

Per element ``α = 1``; for ``k = 1 … max_linesearch_iterations−1``: trial
``u + α du``, accept where ``‖b_t‖² ≤ crit(α)`` or ``‖b_t‖² ≤ atol²`` (see
``_rules``); stop when every element accepts, else ``α /= linesearch_cutback``
for the elements that did not. The last trial is kept regardless. With
``max_linesearch_iterations ≤ 1`` this is plain Newton.
"""

from __future__ import annotations

import torch

from neml2 import log
from neml2._registry import register_neml2_object
from neml2.es import AssembledMatrix, AssembledVector
from neml2.schema import HitSchema, option
from neml2.solvers import _rules as rules
from neml2.solvers._hit import read_int_flag
from neml2.solvers._newton import Evaluator, Newton, Trace
from neml2.solvers._protocol import LinearSolver


@register_neml2_object("NewtonWithLineSearch")
class NewtonWithLineSearch(Newton):
    """Newton with a per-element backtracking (Armijo) or strong-Wolfe-style line search."""

    NAME = "NewtonWithLineSearch"
    hit = Newton.hit + HitSchema(
        option("linesearch_type", str, "BACKTRACKING or STRONG_WOLFE", default="BACKTRACKING"),
        option(
            "max_linesearch_iterations",
            int,
            "Line-search trials plus one (<= 1: full steps)",
            default=10,
        ),
        option(
            "linesearch_cutback", float, "Step-length divisor after a rejected trial", default=2.0
        ),
        option(
            "linesearch_stopping_criteria", float, "Sufficient-decrease constant c", default=1e-3
        ),
        option(
            "check_negative_criterion",
            bool,
            "Accepted for compatibility (integer 0 or 1; unused)",
            default=False,
            reader=read_int_flag,
        ),
    )

    def __init__(
        self,
        linear_solver: LinearSolver | None = None,
        abs_tol: float = 1e-10,
        rel_tol: float = 1e-8,
        max_its: int = 25,
        substep_del_tol: float = 1e-6,
        linesearch_type: str = "BACKTRACKING",
        max_linesearch_iterations: int = 10,
        linesearch_cutback: float = 2.0,
        linesearch_stopping_criteria: float = 1e-3,
        check_negative_criterion: int | bool = 0,
        *,
        collect_log: bool = False,
    ) -> None:
        super().__init__(
            linear_solver, abs_tol, rel_tol, max_its, substep_del_tol, collect_log=collect_log
        )
        if linesearch_type not in rules.LINESEARCH_TYPES:
            raise ValueError(
                f"{self.NAME}: linesearch_type must be one of "
                f"{', '.join(rules.LINESEARCH_TYPES)}, got {linesearch_type!r}"
            )
        if max_linesearch_iterations < 0:
            raise ValueError(
                f"{self.NAME}: max_linesearch_iterations must be >= 0, "
                f"got {max_linesearch_iterations}"
            )
        if not linesearch_cutback > 1.0:
            raise ValueError(
                f"{self.NAME}: linesearch_cutback must be > 1, got {linesearch_cutback}"
            )
        if check_negative_criterion not in (0, 1):
            raise ValueError(
                f"{self.NAME}: check_negative_criterion must be the integer 0 or 1, "
                f"got {check_negative_criterion!r}"
            )
        self.linesearch_type = linesearch_type
        self.max_linesearch_iterations = int(max_linesearch_iterations)
        self.linesearch_cutback = float(linesearch_cutback)
        self.linesearch_stopping_criteria = float(linesearch_stopping_criteria)
        # Accepted for input-file compatibility; NEML2 v3 does not use it either.
        self.check_negative_criterion = int(check_negative_criterion)
        self.last_alpha: torch.Tensor | None = None

    def _update(
        self,
        ev: Evaluator,
        u: AssembledVector,
        b: AssembledVector,
        du: AssembledVector,
        trace: Trace,
    ) -> tuple[AssembledVector, AssembledVector, AssembledMatrix | None]:
        """Line search along ``du``; returns the last trial point and its residual."""
        n_trials = self.max_linesearch_iterations - 1
        if n_trials < 1:
            return super()._update(ev, u, b, du, trace)
        c, kind = self.linesearch_stopping_criteria, self.linesearch_type
        atol = self.abs_tol
        nb2 = b.norm_sq()
        bdu = b.dot(du)
        alpha = torch.ones_like(nb2)
        for k in range(1, n_trials + 1):
            u_t = u.axpy(alpha, du)
            b_t = ev.residual(u_t)
            nbt2 = b_t.norm_sq()
            accept = rules.linesearch_accept(
                nbt2, rules.linesearch_criterion(kind, nb2, bdu, alpha, c), atol
            )
            if trace.debug_on:
                trace.write(
                    log.DEBUG,
                    f"  LS ITERATION {k:3d}, min(alpha) = {float(alpha.min()):e}, "
                    f"max |R| = {float(nbt2.max().sqrt()):e}",
                )
            if k == n_trials or bool(accept.all()):
                break
            alpha = torch.where(accept, alpha, alpha / self.linesearch_cutback)
        self.last_alpha = alpha
        return u_t, b_t, None
