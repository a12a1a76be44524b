"""Opt-in TorchScript tracing of ``Model.value``, and the optimized graph it runs.

Off by default (``torch.jit.trace`` is deprecated in torch; ``neml2.compile`` is the supported
JIT). Switch it on with ``NEML2_JIT_TRACE=1`` in the environment (read at import) or
:func:`set_tracing`. While on, ``model.value(...)`` (and the eager C++ route, which calls it)
runs the model's forward through a ``torch.jit.trace``-d function, traced on the first call for
each input signature (wrapper types and layouts, shapes, dtypes, devices, ``requires_grad``,
grad mode). TorchScript's profiling executor then optimizes it, so after a few calls
``torch.jit.last_executed_optimized_graph()`` shows the shared ``t - t~1`` computed once.

Graph inputs are the model's variables in sorted order (``%eq::a``, ``%eq::a~1``, ...), then its
parameters and buffers (``%eq::<qualified name>``): parameters are never baked in, so
``set_parameter`` takes effect. Models that cannot be traced run eagerly: an ``ImplicitUpdate``
or a model containing one (data-dependent Newton loop, as for :func:`neml2.compile`), and any
signature whose trace raised or emitted a ``TracerWarning`` (data-dependent Python control
flow); eager evaluation then gives the model's own result or error.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from torch.jit._trace import TracerWarning
from torch.nn.utils.stateless import _reparametrize_module

from neml2.solvers._errors import is_truthy

__all__ = ["ENV_VAR", "set_tracing", "traced_value", "tracing", "tracing_enabled"]

ENV_VAR = "NEML2_JIT_TRACE"
_STATE = "_neml2_trace"
_ENABLED = is_truthy(os.environ.get(ENV_VAR))


def tracing_enabled() -> bool:
    """Whether ``Model.value`` runs through traced TorchScript graphs."""
    return _ENABLED


def set_tracing(enabled: bool) -> None:
    """Switch tracing of ``Model.value`` on or off (process-wide; default: ``NEML2_JIT_TRACE``)."""
    global _ENABLED
    _ENABLED = bool(enabled)


@contextmanager
def tracing(enabled: bool = True) -> Iterator[None]:
    """Context manager: tracing on (or off) inside, the previous setting restored after."""
    before = _ENABLED
    set_tracing(enabled)
    try:
        yield
    finally:
        set_tracing(before)


@dataclass(frozen=True)
class _Traced:
    """One traced signature: the TorchScript function and the layouts of its outputs."""

    fn: Any
    outputs: tuple[tuple[Any, ...], ...]


def _meta(x: Any) -> tuple[Any, ...]:
    """Wrapper type and layout of ``x`` (the arguments of ``TensorWrapper._wrap`` after data)."""
    return (
        type(x),
        x.sub_batch_ndim,
        x.sub_batch_state,
        x.sub_batch_meta,
        x.k_ndim,
        x.k_state,
        x.k_pairing,
    )


def _rewrap(meta: tuple[Any, ...], data: torch.Tensor) -> Any:
    return meta[0]._wrap(data, *meta[1:])


def _key(x: Any) -> tuple[Any, ...]:
    d = x.data
    return (*_meta(x), tuple(d.shape), d.dtype, d.device, d.requires_grad)


def _tensor_key(t: torch.Tensor) -> tuple[Any, ...]:
    return (tuple(t.shape), t.dtype, t.device, t.requires_grad)


def _traceable(model: Any) -> bool:
    """Not an ``ImplicitUpdate``, containing none, and not ``neml2.compile``-d (py-jit's rules)."""
    from neml2.jit._compile import _contains_disabled, _jit_disabled, compiled_models

    return not (_jit_disabled(model) or _contains_disabled(model) or compiled_models(model))


def _sorted_order(model: Any) -> list[int]:
    """Positions of the forward arguments in sorted variable-name order (the summary's)."""
    spec = list(model.input_spec)
    return sorted(range(len(spec)), key=lambda i: spec[i])


def _trace(model: Any, args: list[Any], state: dict[str, torch.Tensor]) -> _Traced | None:
    """Trace ``model(*args)`` with the variables (sorted) and ``state`` as graph inputs."""
    from neml2.tensors import TensorWrapper

    order = _sorted_order(model)
    metas = [_meta(a) for a in args]
    names = list(state)
    outputs: list[tuple[Any, ...]] = []

    def fn(*flat: torch.Tensor) -> list[torch.Tensor]:
        xs: list[Any] = [None] * len(metas)
        for pos, t in zip(order, flat[: len(metas)], strict=True):
            xs[pos] = _rewrap(metas[pos], t)
        with _reparametrize_module(model, dict(zip(names, flat[len(metas) :], strict=True))):
            res = model(*xs)
        res = res if isinstance(res, tuple) else (res,)
        if not all(isinstance(r, TensorWrapper) for r in res):
            raise TypeError("traced forward returned a non-tensor output")
        outputs[:] = [_meta(r) for r in res]
        return [r.data for r in res]

    example = tuple([args[i].data for i in order] + list(state.values()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace: Any = torch.jit.trace  # untyped in torch
        traced = trace(fn, example, check_trace=False, strict=False)
    if any(issubclass(w.category, TracerWarning) for w in caught):
        return None
    for w in caught:  # the model's own warnings (not torch.jit.trace's deprecation notice)
        if "torch.jit.trace" not in str(w.message):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    hit = getattr(model, "_hit_name", None) or type(model).__name__
    spec = list(model.input_spec)
    labels = [spec[i] for i in order] + names
    for value, label in zip(traced.graph.inputs(), labels, strict=True):
        value.setDebugName(f"{hit}::{label}")
    return _Traced(traced, tuple(outputs))


def _eager(model: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = model.call_by_name(inputs)
    return out


def traced_value(model: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """``model.value(inputs)`` through the traced graph of this input signature (see module)."""
    d = model.__dict__
    if _STATE not in d:  # None: not traceable (decided once per model)
        d[_STATE] = {} if _traceable(model) else None
    cache: dict[Any, _Traced | None] | None = d[_STATE]
    if cache is None:
        return _eager(model, inputs)
    args = model.wrap_inputs(inputs)
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    key = (
        torch.is_grad_enabled(),
        tuple(_key(a) for a in args),
        tuple((n, *_tensor_key(t)) for n, t in state.items()),
    )
    if key not in cache:
        try:
            cache[key] = _trace(model, args, state)
        except Exception:  # untraceable here: evaluate eagerly (its own result or error)
            cache[key] = None
    entry = cache[key]
    if entry is None:
        return _eager(model, inputs)
    flat = [args[i].data for i in _sorted_order(model)] + list(state.values())
    raw = entry.fn(*flat)
    res = [_rewrap(m, r) for m, r in zip(entry.outputs, raw, strict=True)]
    return dict(zip(model.output_spec, res, strict=True))
