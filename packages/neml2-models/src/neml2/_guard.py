"""Forward guard: ``allow_autograd(reason)`` / ``allow_einsum(reason)`` and the opt-in strict mode.

Model forwards are meant to be plain tensor algebra (derivatives come from the forward chain
rule, contractions from ``neml2.tensors``). With the environment variable
``NEML2_STRICT_FORWARD=1`` set when :mod:`neml2._guard` is imported (or after
:func:`refresh_strict_forward`), the outermost ``Model.__call__`` runs under a
:class:`torch.overrides.TorchFunctionMode` that raises ``RuntimeError`` on

* ``torch.einsum`` unless inside :func:`allow_einsum`;
* ``torch.autograd.grad``, ``torch.autograd.backward`` and ``Tensor.backward`` (hence also
  ``torch.autograd.functional.*`` and ``torch.func.grad``/``jacrev``, which call them) unless
  inside :func:`allow_autograd`.

Limits: the mode only sees calls dispatched through ``__torch_function__``; ``torch.vmap``,
``torch.func.jvp``/``jacfwd`` (forward AD), ``torch.enable_grad`` and calls made from C++ are not
intercepted, and neither is reading a parameter as ``self.<attr>``. Without the variable the
guard costs one boolean test per model call. The allow contexts nest; their state (depth and
reason stack) is thread-local and is always maintained, strict or not.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

__all__ = [
    "STRICT",
    "allow_autograd",
    "allow_einsum",
    "allowed_reasons",
    "call_strict",
    "refresh_strict_forward",
]

_ENV = "NEML2_STRICT_FORWARD"


def _env_strict() -> bool:
    return os.environ.get(_ENV, "").strip() == "1"


STRICT: bool = _env_strict()
"""Whether model forwards run guarded (``NEML2_STRICT_FORWARD=1``)."""


def refresh_strict_forward() -> bool:
    """Re-read ``NEML2_STRICT_FORWARD`` (e.g. after changing it in-process); returns the state."""
    global STRICT
    STRICT = _env_strict()
    return STRICT


class _State(threading.local):
    def __init__(self) -> None:
        self.reasons: dict[str, list[str]] = {"autograd": [], "einsum": []}
        self.models: list[Any] = []


_state = _State()


@contextmanager
def _allow(kind: str, reason: str) -> Iterator[None]:
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(f"allow_{kind}(reason): give a non-empty reason string, got {reason!r}")
    stack = _state.reasons[kind]
    stack.append(reason)
    try:
        yield
    finally:
        stack.pop()


def allow_autograd(reason: str) -> Any:
    """Context manager permitting autograd calls inside a model forward (strict mode).

    ``reason`` (non-empty) documents why, e.g. ``"request_AD local Jacobians"``.
    """
    return _allow("autograd", reason)


def allow_einsum(reason: str) -> Any:
    """Context manager permitting ``torch.einsum`` inside a model forward (strict mode)."""
    return _allow("einsum", reason)


def allowed_reasons(kind: str) -> tuple[str, ...]:
    """Active reasons of this thread for ``kind`` (``"autograd"`` or ``"einsum"``), outermost
    first; its length is the nesting depth."""
    return tuple(_state.reasons[kind])


_AUTOGRAD: dict[Any, str] = {
    torch.autograd.grad: "torch.autograd.grad",
    torch.autograd.backward: "torch.autograd.backward",
    torch.Tensor.backward: "Tensor.backward",
}


class _ForwardGuard(TorchFunctionMode):
    """Raises on einsum / autograd entry points outside the matching ``allow_*`` context."""

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kind = "einsum" if func is torch.einsum else ("autograd" if func in _AUTOGRAD else None)
        if kind is not None and not _state.reasons[kind]:
            name = "torch.einsum" if kind == "einsum" else _AUTOGRAD[func]
            raise RuntimeError(
                f"{name} called inside the forward of {_current()} while "
                f"{_ENV}=1: model forwards must not use {kind}; wrap the call in "
                f"neml2.allow_{kind}(reason) if it is intended"
            )
        return func(*args, **(kwargs or {}))


def _current() -> str:
    m = _state.models[-1] if _state.models else None
    if m is None:
        return "a model"
    return f"{type(m).__name__} '{getattr(m, '_hit_name', None)}'"


def call_strict(model: Any, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``call(*args, **kwargs)`` for ``model``; the outermost call enters the guard mode."""
    models = _state.models
    models.append(model)
    try:
        if len(models) > 1:
            return call(*args, **kwargs)
        with _ForwardGuard():
            return call(*args, **kwargs)
    finally:
        models.pop()
