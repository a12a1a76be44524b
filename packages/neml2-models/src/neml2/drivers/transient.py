r"""``TransientDriver``: step a model through a prescribed load history.

With time steps :math:`t_0, \dots, t_{n-1}` (leading axis of ``prescribed_time``):

* step 0 records the time (if the model reads it), the force slices and the initial
  conditions (input ICs as ``input.0.x``, output ICs as ``output.0.x``); the model is not called;
* step :math:`k \ge 1` records time and forces, copies every lagged input ``x~j`` from step
  :math:`k-1` (``x`` for :math:`j = 1`, else ``x~(j-1)``; outputs first, then inputs), fills the
  inputs still missing with base-shape zeros (not recorded) and records the model's outputs.

Before the first step the driver names every model input it neither prescribes nor initializes
(:meth:`TransientDriver.unsupplied_inputs`): such an input is zero at every step, which is NEML2
v3's behaviour but usually a mistake (a typo in a parameter value reads as a variable name). It is
an :class:`~neml2.factory.InputWarning` by default and an error with ``strict=True``
(``neml2-run --strict``).

``result()`` maps ``input.<k>.<var>`` / ``output.<k>.<var>`` to raw tensors.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

from neml2 import log
from neml2._registry import register_neml2_object
from neml2.drivers._base import TENSOR_TYPES, Driver, pair_options, resolve_value
from neml2.factory import InputError, InputWarning
from neml2.outputs import atomic_output, check_writable
from neml2.schema import HitSchema, SchemaField, dependency, option
from neml2.solvers._errors import ConvergenceError
from neml2.tensors import Scalar, TensorWrapper

__all__ = ["TransientDriver"]

_LAG = re.compile(r"^(.*)~(\d+)$")


def _fields() -> list[SchemaField]:
    out = [
        dependency("model", "get_model", "The model to drive"),
        option("prescribed_time", str, "[Tensors] Scalar of time steps (leading axis = steps)"),
        option("time", str, "Name of the model's time input", default="t"),
        option("save_as", str, "File the results are saved to (torch.save)", default=""),
    ]
    for t in TENSOR_TYPES:
        out += [
            option(f"prescribed_{t}_names", list, f"Prescribed {t} input variables", default=()),
            option(
                f"prescribed_{t}_values", list, f"[Tensors] histories of the {t} forces", default=()
            ),
            option(f"ic_{t}_names", list, f"{t} variables with initial conditions", default=()),
            option(f"ic_{t}_values", list, f"Initial values of the {t} variables", default=()),
        ]
    return out


def _lag(name: str) -> tuple[str, int] | None:
    m = _LAG.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def _promoted_from(model: Any) -> dict[str, str]:
    """Input variable → `` (parameter 'p' of [Models/block])`` for every parameter value that a
    model of the tree reads as a bare variable name (v3's promotion of a non-number)."""
    out: dict[str, str] = {}
    for mod in model.modules():
        for attr, nl in getattr(mod, "nl_params", {}).items():
            if nl.provider is None and nl.input_name not in out:
                block = getattr(mod, "_hit_name", None) or type(mod).__name__
                out[nl.input_name] = f" (the value of parameter '{attr}' of [Models/{block}])"
    return out


def _slice(w: TensorWrapper, k: int) -> TensorWrapper:
    return type(w)(w.data[k], sub_batch_ndim=w.sub_batch_ndim)


@register_neml2_object("TransientDriver")
class TransientDriver(Driver):
    """Drive a model through a prescribed time history of forces, recording every step."""

    hit = HitSchema(*_fields())

    def __init__(
        self,
        *,
        model: Any,
        prescribed_time: Any,
        time: str = "t",
        save_as: str = "",
        strict: bool = False,
        factory: Any = None,
        name: str | None = None,
        **typed: Any,
    ) -> None:
        super().__init__(factory=factory, name=name)
        #: an input the driver neither prescribes nor initializes is an error (else a warning)
        self.strict = strict
        allowed = {f.name for f in self.hit.fields}
        unknown = sorted(set(typed) - allowed)
        if unknown:
            raise TypeError(f"TransientDriver: unexpected argument(s) {unknown}")
        self.model = self._dependency(model, "get_model")
        self.time_name = time
        self.save_as = save_as
        self.show_progress: bool | None = None
        self.time = resolve_value(prescribed_time, Scalar, factory, "option 'prescribed_time'")
        if self.time.dynamic_batch_ndim < 1:
            raise ValueError(
                f"option 'prescribed_time': {prescribed_time!r} has no leading step axis "
                f"(shape {list(self.time.data.shape)})"
            )
        self.nsteps = int(self.time.data.shape[0])
        self.forces = pair_options("prescribed_", typed, factory, list(TENSOR_TYPES))
        self.ics = pair_options("ic_", typed, factory, list(TENSOR_TYPES))
        self._validate()
        self._inputs: list[dict[str, TensorWrapper]] = []
        self._outputs: list[dict[str, TensorWrapper]] = []

    # ---------------------------------------------------------------------------- validation
    def _model_label(self) -> str:
        return f"model '{getattr(self.model, '_hit_name', None) or type(self.model).__name__}'"

    def _validate(self) -> None:
        ins, outs = self.model.input_spec, self.model.output_spec
        for n, t, value in self.forces:
            key = f"option 'prescribed_{t}_names'"
            if n not in ins:
                raise ValueError(
                    f"{key}: '{n}' is not an input of {self._model_label()} "
                    f"(inputs: {', '.join(ins)})"
                )
            self._check_type(key, n, t, ins[n])
            if value.dynamic_batch_ndim < 1 or int(value.data.shape[0]) != self.nsteps:
                steps = int(value.data.shape[0]) if value.dynamic_batch_ndim else 0
                raise ValueError(
                    f"option 'prescribed_{t}_values': the force for '{n}' has {steps} step(s) "
                    f"along its leading axis (shape {list(value.data.shape)}), but "
                    f"prescribed_time has {self.nsteps}"
                )
            self._check_sub_batch(key, n, value.sub_batch_shape)
        forced = {n for n, _, _ in self.forces}
        for n, t, value in self.ics:
            key = f"option 'ic_{t}_names'"
            if n not in ins and n not in outs:
                raise ValueError(
                    f"{key}: '{n}' is neither an input nor an output of {self._model_label()} "
                    f"(inputs: {', '.join(ins)}; outputs: {', '.join(outs)})"
                )
            if n in forced:
                raise ValueError(f"{key}: '{n}' is also prescribed as a force")
            self._check_type(key, n, t, ins.get(n, outs.get(n)))
            self._check_sub_batch(key, n, value.sub_batch_shape)

    def unsupplied_inputs(self) -> list[str]:
        """Model inputs this driver neither prescribes nor initializes, in input order.

        Supplied are the time, the prescribed forces, the inputs with initial conditions and
        every old value ``x~j`` whose source (``x`` for j = 1, else ``x~(j-1)``) is an output of
        the model or itself supplied: it is carried over from the previous step (its initial
        value an initial condition or zero). Every other input is zero at every step.
        """
        ins, outs = self.model.input_spec, self.model.output_spec
        supplied = {n for n, _, _ in self.forces} | {n for n, _, _ in self.ics}
        supplied.add(self.time_name)

        def is_supplied(name: str) -> bool:
            if name in supplied:
                return True
            lag = _lag(name)
            if lag is None:
                return False
            base, j = lag
            src = base if j == 1 else f"{base}~{j - 1}"
            return src in outs or (src in ins and is_supplied(src))

        return [n for n in ins if not is_supplied(n)]

    def _check_supplied(self) -> None:
        """Warn about (``strict``: refuse) inputs that would be zero-filled at every step."""
        missing = self.unsupplied_inputs()
        if not missing:
            return
        where = self._where()
        origins = _promoted_from(self.model)
        named = ", ".join(f"'{n}'{origins.get(n, '')}" for n in missing)
        text = (
            f"{where}: input(s) {named} of {self._model_label()} are neither prescribed nor "
            f"given an initial condition, so they are zero at every step. Prescribe them "
            f"(prescribed_<type>_names/values), give initial values (ic_<type>_names/values), "
            f"or correct the value that was read as a variable name"
        )
        if self.strict:
            raise InputError(f"{text} (strict mode)")
        warnings.warn(
            f"{text}; strict=True (neml2-run --strict) makes this an error",
            InputWarning,
            stacklevel=3,
        )

    def _where(self) -> str:
        return f"[Drivers/{self._hit_name}]" if self._hit_name else "TransientDriver"

    def _check_type(self, key: str, name: str, tname: str, expected: Any) -> None:
        if expected is not TENSOR_TYPES[tname]:
            raise ValueError(
                f"{key}: '{name}' is a {expected.__name__} variable of {self._model_label()}, "
                f"not a {tname}"
            )

    def _check_sub_batch(self, key: str, name: str, shape: tuple[int, ...]) -> None:
        declared = self._declared_sub_batch(name)
        if declared is not None and shape and tuple(shape) != tuple(declared):
            raise ValueError(
                f"{key}: '{name}' has sub-batch shape {list(shape)}, but [Settings] declares "
                f"{list(declared)}"
            )

    def _declared_sub_batch(self, name: str) -> tuple[int, ...] | None:
        if self.factory is None:
            return None
        sub = self.factory.settings.sub_batch_shape(name)
        return None if sub is None else tuple(sub)

    # ---------------------------------------------------------------------------- running
    def run(self) -> bool:
        """Run every step; save the results if ``save_as`` is set (checked writable first)."""
        self._check_supplied()
        if self.save_as:
            check_writable(self.save_as, f"{self._where()} option 'save_as'")
        self._inputs, self._outputs = [], []
        ins = self.model.input_spec
        first: dict[str, TensorWrapper] = {}
        out0: dict[str, TensorWrapper] = {}
        self._record_givens(first, 0)
        for n, _, value in self.ics:
            (first if n in ins else out0)[n] = value
        self._inputs.append(first)
        self._outputs.append(out0)
        for k in self._steps():
            self._step(k)
        if self.save_as:
            self.save_result(self.save_as)
            log.emit("driver", log.INFO, f"Results saved to {self.save_as}")
        return True

    def _steps(self) -> Iterable[int]:
        steps = range(1, self.nsteps)
        show = self.show_progress
        if show is None:
            show = sys.stdout.isatty()
        if not show:
            return steps
        import tqdm  # type: ignore[import-untyped]

        bar: Iterable[int] = tqdm.tqdm(steps, desc="TransientDriver", unit="step", file=sys.stdout)
        return bar

    def _record_givens(self, state: dict[str, TensorWrapper], k: int) -> None:
        if self.time_name in self.model.input_spec:
            state[self.time_name] = _slice(self.time, k)
        for n, _, value in self.forces:
            state[n] = _slice(value, k)

    def _step(self, k: int) -> None:
        state: dict[str, TensorWrapper] = {}
        self._record_givens(state, k)
        prev_in, prev_out = self._inputs[k - 1], self._outputs[k - 1]
        for n in self.model.input_spec:
            lag = _lag(n)
            if lag is None or n in state:
                continue
            base, j = lag
            src = base if j == 1 else f"{base}~{j - 1}"
            value = prev_out.get(src, prev_in.get(src))
            if value is not None:
                state[n] = value
        call = dict(state)
        for n, cls in self.model.input_spec.items():
            if n not in call:
                call[n] = self._zeros(n, cls, call)
        self._inputs.append(state)
        try:
            out = self.model.call_by_name(call)
        except ConvergenceError as e:
            # the same recoverable error (failure data kept), saying at which step and time
            e.args = (f"{self._step_label(k)}: {e}", *e.args[1:])
            raise
        self._outputs.append(dict(out))

    def _step_label(self, k: int) -> str:
        """``TransientDriver 'name' step k of N (t = ...)``: where a step failed."""
        name = f" '{self._hit_name}'" if self._hit_name else ""
        t = self.time.data[k].detach()
        lo, hi = (float(t.min()), float(t.max())) if t.numel() else (float("nan"),) * 2
        when = f"t = {lo:g}" if lo == hi else f"t = {lo:g} to {hi:g}"
        return f"TransientDriver{name} step {k} of {self.nsteps - 1} ({when})"

    def _zeros(self, name: str, cls: Any, state: dict[str, TensorWrapper]) -> TensorWrapper:
        sub = self._declared_sub_batch(name)
        if sub is None:
            lag = _lag(name)
            base = lag[0] if lag else name
            for other, w in state.items():
                ol = _lag(other)
                if (ol[0] if ol else other) == base and w.sub_batch_ndim:
                    sub = w.sub_batch_shape
                    break
        sub = tuple(sub or ())
        t = self.time.data
        data = torch.zeros(sub + tuple(cls.BASE_SHAPE), dtype=t.dtype, device=t.device)
        out: TensorWrapper = cls(data, sub_batch_ndim=len(sub))
        return out

    # ---------------------------------------------------------------------------- results
    def result(self) -> dict[str, torch.Tensor]:
        """``{input.<k>.<var>, output.<k>.<var>}`` → raw tensors (not detached)."""
        res: dict[str, torch.Tensor] = {}
        for prefix, steps in (("input", self._inputs), ("output", self._outputs)):
            for k, state in enumerate(steps):
                for n, w in state.items():
                    res[f"{prefix}.{k}.{n}"] = w.data
        return res

    def variable_types(self) -> dict[str, Any]:
        """Type of every variable the driver may record (model inputs and outputs)."""
        return {**self.model.input_spec, **self.model.output_spec}

    def save_result(self, path: str | Path) -> None:
        """``torch.save(self.result(), path)``, atomically (the old file or the whole new one)."""
        with atomic_output(path, "wb") as fh:
            torch.save(self.result(), fh)
