r"""Adaptive substepping of ``ImplicitUpdate``: cut the step and retry where the solve fails.

The compiled runtime's algorithm (``neml2-aoti``, ``csrc/aoti/substep.cpp``) row for row. The
batch is flattened to rows; the step is the fraction span :math:`[0, 1]`.

Roles of the givens (:func:`given_roles`, by name; the compile pipeline assigns the roles of a
compiled segment with the same function, and refuses an ``incremental_variables`` entry without
a ``~1`` given, which the compiled runtime cannot ramp):

* ``old_state`` :math:`u_{n}` (``u~1`` of an unknown ``u``): chained, the full step's value on the
  first span, the previous span's solution after;
* ``cur_force`` :math:`y` (a given whose ``y~1`` is a given too, or an ``incremental_variables``
  entry, whose ``y~1`` is then an input of the ``ImplicitUpdate``) and ``old_force`` :math:`y_n`
  (``y~1``): interpolated over the step, :math:`y(\tau) = y_n + \tau\,(y - y_n)`, at the span end
  :math:`b` and start :math:`a` respectively;
* ``static``: held.

``solve_to(a, b, rows, level, old, guess)``: a masked Newton solve (``Newton.solve_masked``:
converged rows are frozen, each row ends as if solved alone) of ``rows`` on :math:`[a, b]` from
``guess``; rows that converge keep their solution. The failed rows :math:`F`, when
``level < max_substepping_level``, are solved on :math:`[a, m]` then :math:`[m, b]`,
:math:`m = (a + b)/2`, one level deeper: the first half from the span's own guess, the second
from the midpoint solution, with the old states chained from it; past the maximum level a
recoverable :class:`~neml2.solvers.ConvergenceError` is raised (``substepping exhausted: ...``).

Derivatives (reverse mode, autograd through a call): every converged (span, rows) solve is a
``ImplicitSolve`` node at its solution, fed by the
interpolated givens and the chained old states, so the gradient is that of the substepped map
(the IFT adjoint of each span, chained). Forward tangents (``v``) are the ``ImplicitUpdate``'s
concern (see there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from neml2 import log
from neml2.es import AssembledVector
from neml2.es._layout import broadcast_batch
from neml2.es._tangents import conform
from neml2.models.common._implicit_ift import ImplicitSolve
from neml2.solvers import ConvergenceError, RetCode
from neml2.tensors import TensorWrapper

__all__ = ["SubstepResult", "Substepper", "given_roles"]


@dataclass
class SubstepResult:
    """Outcome of a substepped solve: return code, masked Newton updates summed over every
    solve, number of solves, deepest level reached (0: no halving was needed)."""

    ret: RetCode
    iterations: int
    solves: int
    max_level: int


def given_roles(
    given_names: Sequence[str], unknown_names: Sequence[str], incremental: Sequence[str] = ()
) -> dict[str, tuple[str, str | None]]:
    """``{given: (role, pair)}``: ``old_state`` (pair: the unknown), ``old_force`` (pair: the
    current force), ``cur_force`` (pair: ``<name>~1``), ``static`` (no pair).

    The one rule both routes use: py-eager's :class:`Substepper` and the compile pipeline, which
    writes the roles into an implicit segment's metadata for the C++ runtime."""
    names = set(given_names)
    out: dict[str, tuple[str, str | None]] = {}
    for g in given_names:
        base, sep, lag = g.rpartition("~")
        if sep and lag == "1" and base in unknown_names:
            out[g] = ("old_state", base)
        elif sep and lag == "1" and base in names:
            out[g] = ("old_force", base)
        elif f"{g}~1" in names or g in incremental:
            out[g] = ("cur_force", f"{g}~1")
        else:
            out[g] = ("static", None)
    return out


def _flat(x: TensorWrapper, batch: Sequence[int], n: int) -> TensorWrapper:
    """``x`` with its dynamic batch broadcast to ``batch`` and flattened to ``n`` rows."""
    rest = tuple(x.data.shape[x.dynamic_batch_ndim :])
    d = x.data.expand((*batch, *rest)).reshape((n, *rest))
    return x._like(d)


def _rows(x: TensorWrapper, idx: torch.Tensor | None) -> TensorWrapper:
    return x if idx is None else x._like(x.data.index_select(0, idx))


class Substepper:
    """One substepped solve of an ``ImplicitUpdate`` (see the module docstring).

    ``givens``: the residual's givens; ``pairs``: ``<name>~1`` inputs of incremental variables
    that are not givens; ``guess``: the initial guesses of the unknowns; ``subs``: the unknowns'
    sub-batch shapes; ``need_grad``: build the reverse-mode (IFT) graph.
    """

    def __init__(
        self,
        iu: Any,
        givens: Mapping[str, TensorWrapper],
        pairs: Mapping[str, TensorWrapper],
        guess: Mapping[str, TensorWrapper],
        subs: Mapping[str, tuple[int, ...]],
        need_grad: bool,
    ) -> None:
        self.iu = iu
        self.system = system = iu.system
        self.max_level = int(iu.max_substepping_level)
        self.subs = dict(subs)
        self.need_grad = need_grad
        # sub-batches settled before the batch is flattened (an unbatched value is expanded)
        declared = system.declared_sub
        givens = {g: conform(g, x, declared[g]) if g in declared else x for g, x in givens.items()}
        guess = {u: conform(u, guess[u], self.subs[u]) for u in system.unknown_names}
        shapes = [x.dynamic_batch_shape for x in (*givens.values(), *pairs.values())]
        shapes += [guess[u].dynamic_batch_shape for u in system.unknown_names]
        self.batch = tuple(broadcast_batch(*shapes))
        n = 1
        for s in self.batch:
            n *= s
        self.n = n
        flat = {k: _flat(x, self.batch, n) for k, x in (*givens.items(), *pairs.items())}
        self.guess = {u: _flat(guess[u], self.batch, n) for u in system.unknown_names}
        self.roles = given_roles(system.given_names, system.unknown_names, iu.incremental_variables)
        # per given: (start, end) of the full step, y(tau) = start + tau (end - start)
        self.span: dict[str, tuple[TensorWrapper, TensorWrapper]] = {}
        self.old: dict[str, TensorWrapper] = {}
        for g in system.given_names:
            role, pair = self.roles[g]
            v = flat[g]
            if role == "cur_force":
                assert pair is not None
                self.span[g] = (flat[pair], v)
            elif role == "old_force":
                assert pair is not None
                self.span[g] = (v, flat[pair])
            elif role == "old_state":
                self.old[g] = v
            else:
                self.span[g] = (v, v)
        self.iterations = 0
        self.solves = 0
        self.level_reached = 0

    # ------------------------------------------------------------------ spans
    def _givens(
        self, rows: torch.Tensor | None, a: float, b: float, old: Mapping[str, TensorWrapper]
    ) -> dict[str, TensorWrapper]:
        """The givens of ``rows`` (None: all) on the span ``[a, b]``."""
        out: dict[str, TensorWrapper] = {}
        for g in self.system.given_names:
            role, _ = self.roles[g]
            if role == "old_state":
                out[g] = old[g]
                continue
            s0, s1 = (_rows(x, rows) for x in self.span[g])
            if role in ("cur_force", "old_force"):
                tau = b if role == "cur_force" else a
                out[g] = s0._like((s0.data + tau * (s1.data - s0.data)).contiguous())
            else:
                out[g] = s1
        return out

    def _masked(
        self, givens: Mapping[str, TensorWrapper], guess: Mapping[str, TensorWrapper]
    ) -> tuple[AssembledVector, torch.Tensor]:
        system = self.system
        with torch.no_grad():
            system.initialize({g: x._like(x.data.detach()) for g, x in givens.items()})
            system.set_unknown_sub_batch(self.subs)
            u0 = system.pack_unknowns({u: x._like(x.data.detach()) for u, x in guess.items()})
            res = self.iu.solver.solve_masked(system, u0)
        self.iterations += res.iterations
        self.solves += 1
        return res.u, res.converged.reshape(-1)

    def _attach(
        self, givens: Mapping[str, TensorWrapper], values: Mapping[str, torch.Tensor]
    ) -> dict[str, torch.Tensor]:
        """The solution ``values`` of ``givens`` as an IFT autograd node (reverse mode)."""
        system = self.system
        with torch.no_grad():
            system.initialize({g: x._like(x.data.detach()) for g, x in givens.items()})
            system.set_unknown_sub_batch(self.subs)
            u = system.pack_unknowns(
                {
                    n: system.types[n]._wrap(values[n], len(self.subs.get(n, ())))
                    for n in system.unknown_names
                }
            )
        gs = [givens[g] for g in system.given_names]
        params = [p for _, p in system.model.named_parameters()]
        outs = ImplicitSolve.apply(  # type: ignore[no-untyped-call]
            self.iu,
            u,
            tuple(x.sub_batch_ndim for x in gs),
            *(x.data for x in gs),
            *params,
        )
        return dict(zip(system.unknown_names, outs, strict=True))

    def solve_to(
        self,
        a: float,
        b: float,
        rows: torch.Tensor | None,
        level: int,
        old: Mapping[str, TensorWrapper],
        guess: Mapping[str, TensorWrapper],
    ) -> dict[str, torch.Tensor]:
        """Solutions ``(n_rows, *sub, *base)`` per unknown of ``rows`` (None: all) on ``[a, b]``."""
        system = self.system
        self.level_reached = max(self.level_reached, level)
        givens = self._givens(rows, a, b, old)
        u, conv = self._masked(givens, guess)
        out = {n: x.data for n, x in system.unpack_unknowns(u).items()}
        failed = (~conv).nonzero().squeeze(-1)
        nf = failed.numel()
        if log.enabled("substep", log.DEBUG):
            log.emit(
                "substep",
                log.DEBUG,
                f"level {level}, span [{a:g}, {b:g}]: {conv.numel() - nf} of {conv.numel()} "
                f"row(s) converged",
            )
        if self.need_grad and nf < conv.numel():
            ok = None if nf == 0 else conv.nonzero().squeeze(-1)
            vals = self._attach(
                {g: _rows(x, ok) for g, x in givens.items()},
                {n: (x if ok is None else x.index_select(0, ok)) for n, x in out.items()},
            )
            out = vals if ok is None else {n: x.index_copy(0, ok, vals[n]) for n, x in out.items()}
        if nf == 0:
            return out
        if level >= self.max_level:
            raise ConvergenceError(
                f"substepping exhausted: {nf} element(s) did not converge after {level} step "
                f"halvings (max_substepping_level = {self.max_level})",
                ret=RetCode.MAXITER,
            )
        mid = 0.5 * (a + b)
        rows_f = failed if rows is None else rows.index_select(0, failed)
        old_f = {g: _rows(x, failed) for g, x in old.items()}
        guess_f = {n: _rows(x, failed) for n, x in guess.items()}
        u_mid = self.solve_to(a, mid, rows_f, level + 1, old_f, guess_f)
        mid_vals = {n: self._wrap_unknown(n, x) for n, x in u_mid.items()}
        for g in old_f:  # chain the old states from the midpoint solution
            pair = self.roles[g][1]
            assert pair is not None
            old_f[g] = system.types[g]._wrap(u_mid[pair], len(self.subs.get(pair, ())))
        u_end = self.solve_to(mid, b, rows_f, level + 1, old_f, mid_vals)
        return {n: x.index_copy(0, failed, u_end[n]) for n, x in out.items()}

    def _wrap_unknown(self, n: str, x: torch.Tensor) -> TensorWrapper:
        w: TensorWrapper = self.system.types[n]._wrap(x, len(self.subs.get(n, ())))
        return w

    def run(self) -> tuple[dict[str, TensorWrapper], SubstepResult]:
        """Solve the step; values per unknown with the broadcast batch of all inputs."""
        out = self.solve_to(0.0, 1.0, None, 0, self.old, self.guess)
        res: dict[str, TensorWrapper] = {}
        for n, x in out.items():
            res[n] = self._wrap_unknown(n, x.reshape((*self.batch, *x.shape[1:])))
        return res, SubstepResult(RetCode.SUCCESS, self.iterations, self.solves, self.level_reached)
