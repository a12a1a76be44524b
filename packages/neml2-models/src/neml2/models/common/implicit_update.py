r"""``ImplicitUpdate``: solve :math:`r(u; g) = 0` of an equation system for the unknowns.

Outputs are the unknowns :math:`u^*` (order of ``unknowns``); inputs are the givens :math:`g`
(and, without a ``predictor``, the unknowns themselves as initial guesses; with one, the
predictor's inputs). The solve runs the registered nonlinear ``solver`` (Newton) on the
system, one model call per iteration.

Derivatives by the implicit function theorem at :math:`u^*`:

* forward (``v`` passed): :math:`\mathrm d u/\mathrm d g = -A^{-1}B`, :math:`A = \partial r/
  \partial u`, :math:`B = \partial r/\partial g`, solved by ``input_sensitivity_solver``;
  tangents on guess inputs are ignored;
* reverse (autograd through a call): :math:`A^T\lambda = \partial L/\partial u^*` is solved by
  ``param_sensitivity_solver`` and :math:`-(\partial r/\partial\theta)^T\lambda` is returned for
  the givens and every parameter :math:`\theta` of the residual model (other inputs get zero).

Default sensitivity solver: the Newton linear solver if it is direct, else a new ``DenseLU``.

Sub-batch: an unknown's sub-batch shape comes from its ``[Settings]`` declaration, the initial
guess or its ``u~k`` givens (they must agree); unbatched guesses are expanded to it, unmarked
batched values are rejected (see :mod:`neml2.es.nonlinear_system` for the layouts).
Batch shape of the outputs (plain call, no ``v``): the solution carries the batch
:math:`B = \operatorname{broadcast}(B_u, B_g)` of the guesses :math:`B_u` and givens :math:`B_g`
once Newton has taken a step; a solve that converges at iteration 0 returns the guess itself, with
the guesses' own batch :math:`B_u` (as v3: unbatched old state stays unbatched until an update
makes it batch-dependent). Tangents (``v``) keep :math:`B`.
Substepping (``max_substepping_level > 0``; ``neml2.models.common.substep``, the compiled
runtime's algorithm): masked Newton solves over the step fraction span :math:`[0, 1]`, failed rows
bisected up to ``max_substepping_level`` times (then a recoverable ``ConvergenceError``), force
pairs ``y~1 → y`` and ``incremental_variables`` interpolated, old states chained. The outputs
carry the broadcast batch of all inputs. Derivatives, as the compiled runtime: forward tangents
(``v``) by the IFT at the converged point when no halving was needed, and an error when one was;
reverse mode (autograd) chains the IFT of every sub-span, the exact derivative of the substepped
result. With ``max_substepping_level = 0`` the step is one throwing solve (the ``~1`` inputs of
``incremental_variables`` are then unused).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._native import native_workspace
from neml2._registry import register_neml2_object
from neml2.es import AssembledVector
from neml2.es._layout import broadcast_batch
from neml2.es.nonlinear_system import ModelNonlinearSystem
from neml2.models.common._implicit_ift import ImplicitSolve, contract
from neml2.models.common.substep import Substepper
from neml2.models.model import Model, register_submodule
from neml2.schema import HitSchema, dependency, option
from neml2.solvers import ConvergenceError, DenseLU, DirectSolver, LinearSolver, RetCode
from neml2.tensors import TensorWrapper

__all__ = ["ImplicitUpdate"]


@register_neml2_object("ImplicitUpdate")
class ImplicitUpdate(Model):
    """Solve an equation system for its unknowns; derivatives by implicit differentiation."""

    hit = HitSchema(
        dependency("equation_system", "get_equation_system", "Equation system to solve"),
        dependency("solver", "get_solver", "Nonlinear solver (e.g. Newton)"),
        dependency(
            "input_sensitivity_solver", "get_solver",
            "Linear solver for du/dg = -A^-1 B (default: the Newton linear solver if direct, "
            "else DenseLU)", default=None,
        ),
        dependency(
            "param_sensitivity_solver", "get_solver",
            "Linear solver for the adjoint A^T lambda = dL/du (default as input_sensitivity_solver)",
            default=None,
        ),
        dependency(
            "predictor", "get_model", "Model computing the initial guess of the unknowns",
            default=None,
        ),
        option(
            "max_substepping_level", int,
            "Maximum number of step halvings on a failed solve (0: no substepping)", default=0,
        ),
        option(
            "incremental_variables", list,
            "Givens interpolated across substeps (each adds an input '<name>~1')", default=(),
        ),
    )  # fmt: skip

    equation_system: Any
    solver: Any
    predictor: Any
    input_sensitivity_solver: Any
    param_sensitivity_solver: Any
    max_substepping_level: int
    incremental_variables: list[str]

    def __post_init__(self) -> None:
        system = self.equation_system
        if not isinstance(system, ModelNonlinearSystem):
            raise TypeError(
                f"option 'equation_system': expected a NonlinearSystem, got {type(system).__name__}"
            )
        if isinstance(self.solver, LinearSolver) or not callable(
            getattr(self.solver, "solve", None)
        ):
            raise TypeError(
                f"option 'solver': expected a nonlinear solver (e.g. Newton), got "
                f"{type(self.solver).__name__}"
            )
        for key in ("input_sensitivity_solver", "param_sensitivity_solver"):
            s = getattr(self, key)
            if s is not None and not isinstance(s, DirectSolver):
                raise TypeError(
                    f"option '{key}': expected a direct linear solver (e.g. DenseLU), got "
                    f"{type(s).__name__}"
                )
        pred = self.predictor
        if pred is not None and not isinstance(pred, Model):
            raise TypeError(f"option 'predictor': expected a model, got {type(pred).__name__}")
        if self.max_substepping_level < 0:
            raise ValueError(
                f"option 'max_substepping_level': must be >= 0, got {self.max_substepping_level}"
            )
        if self.max_substepping_level and not callable(getattr(self.solver, "solve_masked", None)):
            raise TypeError(
                f"option 'max_substepping_level': substepping needs a solver with a masked solve "
                f"(e.g. Newton), got {type(self.solver).__name__}"
            )
        self.incremental_variables = list(self.incremental_variables or ())
        for x in self.incremental_variables:
            if x not in system.given_names:
                raise ValueError(
                    f"option 'incremental_variables': '{x}' is not a given variable of the "
                    f"equation system (givens: {list(system.given_names)})"
                )
        self.system = system
        rm = system.model
        register_submodule(self, rm, "_residual_model")
        if "predictor" in self._modules:  # v3 order: the residual model first, then the predictor
            self._modules["predictor"] = self._modules.pop("predictor")
        produced = set(pred.output_spec) if pred is not None else set()
        givens = set(system.given_names)
        ins: dict[str, Any] = {}
        for n, t in rm.input_spec.items():
            if n in givens or n not in produced:
                ins[n] = t
        if pred is not None:
            for n, t in pred.input_spec.items():
                ins.setdefault(n, t)
        for x in self.incremental_variables:
            ins.setdefault(f"{x}~1", rm.input_spec[x])
        self.input_spec = ins
        self.output_spec = {u: rm.input_spec[u] for u in system.unknown_names}
        self.output_priorities = {u: None for u in system.unknown_names}
        self._guess_inputs = tuple(u for u in system.unknown_names if u not in produced)
        self._default_solver: DirectSolver | None = None
        self.last_result: Any = None

    @property
    def guess_inputs(self) -> tuple[str, ...]:
        """Unknowns whose initial guess is a model input (those the predictor does not give)."""
        return self._guess_inputs

    @property
    def _param_names(self) -> list[str]:
        return [n for n, _ in self.system.model.named_parameters()]

    def sensitivity_solver(self, which: str) -> DirectSolver:
        """The input (``'input'``) or parameter (``'param'``) sensitivity solver."""
        s = getattr(self, f"{which}_sensitivity_solver")
        if s is not None:
            return s  # type: ignore[no-any-return]
        lin = getattr(self.solver, "linear_solver", None)
        if isinstance(lin, DirectSolver):
            return lin
        if self._default_solver is None:
            self._default_solver = DenseLU()
        return self._default_solver

    # ------------------------------------------------------------------ solve
    def _guess(self, vals: dict[str, Any]) -> dict[str, Any]:
        guess = {u: vals[u] for u in self._guess_inputs}
        pred = self.predictor
        if pred is not None:
            with torch.no_grad():
                outs = pred.call_by_name({n: vals[n] for n in pred.input_spec})
            for u in self.system.unknown_names:
                if u not in guess:
                    guess[u] = outs[u]
        return guess

    def _unknown_subs(
        self, givens: dict[str, Any], guess: dict[str, Any]
    ) -> dict[str, tuple[int, ...]]:
        """Sub-batch shape per unknown: [Settings] declaration, guess, ``u~k`` givens (agreeing)."""
        system = self.system
        out: dict[str, tuple[int, ...]] = {}
        for u in system.unknown_names:
            found: list[tuple[str, tuple[int, ...]]] = []
            if u in system.declared_sub:
                found.append(("its [Settings] declaration", system.declared_sub[u]))
            g = guess.get(u)
            if isinstance(g, TensorWrapper) and g.sub_batch_ndim:
                found.append(("the initial guess", tuple(g.sub_batch_shape)))
            for n, x in givens.items():
                lag = n[len(u) + 1 :]
                if n.startswith(f"{u}~") and lag.isdigit() and x.sub_batch_ndim:
                    found.append((f"'{n}'", tuple(x.sub_batch_shape)))
            shapes = {s for _, s in found}
            if len(shapes) > 1:
                what = ", ".join(f"{w} {s}" for w, s in found)
                raise ValueError(
                    f"ImplicitUpdate '{self._hit_name}': conflicting sub-batch shapes for unknown "
                    f"'{u}': {what}"
                )
            out[u] = found[0][1] if found else ()
        return out

    def _failure_message(self, e: ConvergenceError) -> str:
        """A failed solve's message, located at this model and its equation system."""
        return (
            f"Nonlinear solve failed with status MAXITER: ImplicitUpdate '{self._hit_name}' "
            f"(equation system of model '{self.system.model._hit_name}'): {e}"
        )

    def _solve(self, givens: dict[str, Any], guess: dict[str, Any]) -> AssembledVector:
        system = self.system
        system.initialize(givens)
        system.set_unknown_sub_batch(self._unknown_subs(system.givens, guess))
        u0 = system.pack_unknowns(guess)
        try:
            u, result = self.solver.solve(system, u0)
        except ConvergenceError as e:
            raise ConvergenceError(
                self._failure_message(e),
                ret=getattr(e, "ret", RetCode.MAXITER),
                converged_mask=e.converged_mask,
                unknowns=(
                    system.unpack_unknowns(e.unknowns)
                    if isinstance(e.unknowns, AssembledVector)
                    else e.unknowns
                ),
            ) from e
        self.last_result = result
        return u  # type: ignore[no-any-return]

    def forward(self, *args: Any, v: Any = None) -> Any:
        """Solve for the unknowns; with ``v`` also push tangents by the IFT. Always a tuple."""
        if len(args) != len(self.input_spec):
            raise TypeError(
                f"ImplicitUpdate '{self._hit_name}': expected {len(self.input_spec)} inputs "
                f"{list(self.input_spec)}, got {len(args)}"
            )
        vals = {
            n: (a if type(a) is t else t(a))
            for (n, t), a in zip(self.input_spec.items(), args, strict=True)
        }
        system = self.system
        givens = {g: vals[g] for g in system.given_names}
        guess = self._guess(vals)
        if self.max_substepping_level:
            return self._substep(vals, givens, guess, v)
        if v is None and self._needs_autograd(givens):
            params = [p for _, p in system.model.named_parameters()]
            gdata = [givens[g].data for g in system.given_names]
            gsub = tuple(givens[g].sub_batch_ndim for g in system.given_names)
            outs = ImplicitSolve.apply(  # type: ignore[no-untyped-call]
                self, guess, gsub, *gdata, *params
            )
            lay = system.unknown_layout
            return self._keep_guess_batch(
                tuple(
                    system.types[n]._wrap(x, len(lay.variable(n).sub_batch_shape))
                    for n, x in zip(system.unknown_names, outs, strict=True)
                ),
                guess,
            )
        u = self._solve(givens, guess)
        uvals = system.unpack_unknowns(u)
        result = tuple(uvals[n] for n in system.unknown_names)
        if v is None:
            return self._keep_guess_batch(result, guess)
        with native_workspace(self.solver):  # the solve's memory, warm
            return (*result, self._ift(u, uvals, v))

    def _substep(
        self, vals: dict[str, Any], givens: dict[str, Any], guess: dict[str, Any], v: Any
    ) -> Any:
        """The substepped solve (``neml2.models.common.substep``); with ``v``, tangents by the
        IFT at the converged point, refused when the step needed halvings (as compiled)."""
        system = self.system
        pairs = {
            f"{x}~1": vals[f"{x}~1"]
            for x in self.incremental_variables
            if f"{x}~1" not in system.given_names
        }
        subs = self._unknown_subs(givens, guess)
        need_grad = v is None and (
            self._needs_autograd(givens)
            or (torch.is_grad_enabled() and any(x.data.requires_grad for x in pairs.values()))
        )
        sub = Substepper(self, givens, pairs, guess, subs, need_grad)
        try:
            uvals, result = sub.run()
        except ConvergenceError as e:
            raise ConvergenceError(
                self._failure_message(e),
                ret=e.ret,
            ) from e
        self.last_result = result
        out = tuple(uvals[n] for n in system.unknown_names)
        if v is None:
            return out
        if not any(v.get(g) for g in system.given_names):
            return (*out, {})
        if result.max_level:
            raise RuntimeError(
                f"ImplicitUpdate '{self._hit_name}': derivatives through a substepped implicit "
                f"solve are not available (the solve needed {result.max_level} step halving "
                f"level(s)); reduce the step or use forward only"
            )
        with torch.no_grad():
            system.initialize(givens)
            system.set_unknown_sub_batch(subs)
            u = system.pack_unknowns(uvals)
        with native_workspace(self.solver):
            return (*out, self._ift(u, uvals, v))

    def _keep_guess_batch(
        self, result: tuple[TensorWrapper, ...], guess: dict[str, Any]
    ) -> tuple[TensorWrapper, ...]:
        """After a solve that took no Newton step, the solution (= the guess, expanded to the
        givens' batch for the solve) narrowed back to the guesses' broadcast dynamic batch
        (through autograd the narrowed value is the solution's first entry along cut axes)."""
        res = self.last_result
        if res is None or getattr(res, "iterations", None) != 0:
            return result
        shapes = [tuple(guess[n].dynamic_batch_shape) for n in self.system.unknown_names]
        target = tuple(broadcast_batch(*shapes))
        return tuple(_narrow_batch(x, target) for x in result)

    def _needs_autograd(self, givens: dict[str, Any]) -> bool:
        if not torch.is_grad_enabled():
            return False
        if any(x.data.requires_grad for x in givens.values()):
            return True
        return any(p.requires_grad for p in self.system.model.parameters())

    def _ift(self, u: AssembledVector, uvals: dict[str, Any], v: Any) -> dict[str, Any]:
        """Forward IFT: push the givens' tangents through ``du/dg = -A^-1 B``."""
        system = self.system
        seeded = [g for g in system.given_names if v.get(g)]
        if not seeded:
            return {}
        A = system.cached_jacobian(u)
        with torch.no_grad():
            A2, B, _ = system.assemble(
                u, need_A=A is None, need_B=True, need_b=False, givens=seeded
            )
            A = A if A is not None else A2
            assert A is not None and B is not None
            X = self.sensitivity_solver("input").solve_matrix(A, B, overwrite_b=True)
            neg_X = [_negated(row[0]) for row in X.blocks]  # du/dg
        gcols = system.given_layout(seeded).groups[0]
        nbatch = len(u.batch_shape)
        v_out: dict[str, Any] = {}
        for gi, grp in enumerate(system.unknown_layout.groups):
            blk = neg_X[gi]
            for i, var in enumerate(grp.variables):
                rows = blk[..., grp.offsets[i] : grp.offsets[i + 1], :]
                cls = system.types[var.name]
                actions = {
                    gv.name: (
                        lambda t, b=rows[..., gcols.offsets[j] : gcols.offsets[j + 1]], c=cls,
                        gs=gv.sub_batch_shape, us=var.sub_batch_shape, ub=grp.is_block:
                        contract(b, t, c, nbatch, gs, us, ub)
                    )
                    for j, gv in enumerate(gcols.variables)
                }  # fmt: skip
                v_out.update(self.apply_chain_rule(v, var.name, actions, output=uvals[var.name]))
        return v_out


def _negated(t: torch.Tensor) -> torch.Tensor:
    """``-t``, in place when ``t`` is contiguous (a solver's result is the caller's; this saves a
    buffer of the sensitivities' size per call), else new."""
    return t.neg_() if t.is_contiguous() else -t


def _narrow_batch(x: TensorWrapper, target: tuple[int, ...]) -> TensorWrapper:
    """``x`` with its dynamic batch cut to ``target`` (entry 0 along the axes ``target`` lacks or
    has of size 1); only used where every entry along those axes is equal."""
    batch = tuple(x.dynamic_batch_shape)
    if batch == target:
        return x
    d = x.data
    lead = len(batch) - len(target)
    d = d[(0,) * lead]
    for i, (have, want) in enumerate(zip(batch[lead:], target, strict=True)):
        if want == 1 and have != 1:
            d = d.narrow(i, 0, 1)
    out: TensorWrapper = type(x)._wrap(d, x.sub_batch_ndim)
    return out
