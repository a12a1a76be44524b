"""py-jit: ``neml2.compile`` (in-place ``torch.compile``) and ``neml2.compiled_graph``.

A model's ``forward`` (value and ``v`` tangent paths alike) is replaced on the instance by a
compiled copy, so derivatives still come from the forward chain rule, now traced and fused. The
call is wrapped in :func:`neml2.allow_autograd` outside the graph (guard evaluation and AOT
tracing may use autograd). Shapes are static (``dynamic=False``): one recompile per new
batch/sub-batch/K shape. Models with data-dependent control flow (``ImplicitUpdate``'s Newton
loop) are not compiled; their JIT-able parts are (the residual model of the equation system and
the predictor), and a ``ComposedModel`` containing one compiles each sub-model separately.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from neml2._guard import allow_autograd
from neml2.jit._graph import GraphRecorder

__all__ = ["compile", "compiled_graph", "compiled_models"]

_STATE = "_neml2_jit"
#: Dynamo cache limits raised for pyzag-style targets (many shapes: chunk sizes, time steps)
_CACHE_LIMIT, _ACCUMULATED_LIMIT = 512, 4096


def _jit_disabled(model: Any) -> bool:
    from neml2.models.common.implicit_update import ImplicitUpdate

    return isinstance(model, ImplicitUpdate) or bool(getattr(model, "DISABLE_JIT", False))


def _contains_disabled(model: Any) -> bool:
    from neml2.models.model import Model

    return any(isinstance(m, Model) and _jit_disabled(m) for m in model.modules())


def _compile_model(model: Any, fullgraph: bool, mode: str | None, kw: dict[str, Any]) -> None:
    if getattr(model, _STATE, None) is not None:
        return
    if _jit_disabled(model):
        from neml2.models.common.implicit_update import ImplicitUpdate

        if isinstance(model, ImplicitUpdate):
            _compile_model(model.system.model, fullgraph, mode, kw)
            if model.predictor is not None:
                _compile_model(model.predictor, fullgraph, mode, kw)
        return
    if _contains_disabled(model):
        from neml2.models.model import Model

        for child in model.children():
            if isinstance(child, Model):
                _compile_model(child, fullgraph, mode, kw)
        return
    try:
        patches: dict[str, Any] = dict(torch._inductor.list_mode_options(mode) if mode else {})
    except RuntimeError as e:
        raise ValueError(f"neml2.compile: option 'mode': {e}") from None
    patches.update(kw.pop("options", None) or {})
    recorder = GraphRecorder(tuple(model.input_spec))
    eager = type(model).forward.__get__(model)
    compiled: Callable[..., Any] = torch.compile(
        eager, fullgraph=fullgraph, dynamic=False, backend=recorder.backend(patches), **kw
    )

    def forward(*args: Any, **kwargs: Any) -> Any:
        with allow_autograd("py-jit: Dynamo guards and AOT tracing around the compiled forward"):
            return compiled(*args, **kwargs)

    forward.__doc__ = f"Compiled forward of {type(model).__name__} '{model._hit_name}'."
    model.__dict__["forward"] = forward
    model.__dict__[_STATE] = recorder


def _system_of(target: Any) -> Any:
    from neml2.es import ModelNonlinearSystem

    if isinstance(target, ModelNonlinearSystem):
        return target
    sys = getattr(target, "sys", None)
    return sys if isinstance(sys, ModelNonlinearSystem) else None


def compile(target: Any, *, fullgraph: bool = False, mode: str | None = None, **kw: Any) -> Any:
    """Compile ``target`` in place with ``torch.compile`` and return it.

    ``target``: a :class:`~neml2.models.model.Model`, a ``ModelNonlinearSystem`` (its residual
    model is compiled) or an object with a ``.sys`` system (pyzag adapter; also raises Dynamo's
    ``cache_size_limit`` to >= 512 and ``accumulated_cache_size_limit`` to >= 4096).
    ``mode``: an Inductor mode (``"default"``, ``"reduce-overhead"``, ``"max-autotune"``, ...);
    ``options=`` (Inductor config) and other keywords go to ``torch.compile``. Compiling twice
    is a no-op.
    """
    from neml2.models.model import Model

    for bad in ("dynamic", "backend"):
        if bad in kw:
            raise TypeError(
                f"neml2.compile: '{bad}' cannot be set (py-jit fixes dynamic=False and uses "
                f"Inductor with graph capture)"
            )
    if isinstance(target, Model):
        _compile_model(target, fullgraph, mode, dict(kw))
        return target
    sys = _system_of(target)
    if sys is None:
        raise TypeError(
            f"neml2.compile: expected a Model, a ModelNonlinearSystem or an object with a "
            f"'.sys' equation system, got {type(target).__name__}"
        )
    if sys is not target:
        cfg = torch._dynamo.config
        cfg.cache_size_limit = max(cfg.cache_size_limit, _CACHE_LIMIT)
        cfg.accumulated_cache_size_limit = max(cfg.accumulated_cache_size_limit, _ACCUMULATED_LIMIT)
    _compile_model(sys.model, fullgraph, mode, dict(kw))
    return target


def compiled_models(model: Any) -> list[Any]:
    """The models (``model`` or its sub-models) whose forward :func:`compile` replaced."""
    from neml2.models.model import Model

    if not isinstance(model, Model):
        sys = _system_of(model)
        if sys is None:
            raise TypeError(f"expected a Model or an equation system, got {type(model).__name__}")
        model = sys.model
    return [m for m in model.modules() if getattr(m, _STATE, None) is not None]


def compiled_graph(model: Any, *, optimized: bool = True) -> str:
    """Text of the graph compiled most recently for ``model`` (or its compiled sub-model).

    ``optimized=True``: the ATen graph after lowering and common-subexpression elimination
    (what Inductor compiles); ``False``: the graph as Dynamo traced it. Raises ``RuntimeError``
    if nothing was compiled yet (call the compiled model first).
    """
    models = compiled_models(model)
    if not models:
        raise RuntimeError(
            f"neml2.compiled_graph: {type(model).__name__} was not compiled (call neml2.compile)"
        )
    graphs = [g for m in models for g in getattr(m, _STATE).graphs]
    if not graphs:
        raise RuntimeError(
            "neml2.compiled_graph: the compiled model has not been called yet (graphs are "
            "traced on the first call)"
        )
    g = max(graphs, key=lambda c: c.seq)
    return str(g.optimized if optimized else g.traced)
