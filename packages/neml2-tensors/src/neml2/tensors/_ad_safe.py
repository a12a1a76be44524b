r"""AD-safe ``sqrt, exp, tanh, reciprocal`` (``docs/design/tensors.md``, "AD-safe functions").

Values are the plain torch ops; the derivatives are recomputed from the INPUT instead of
reusing the saved output, which dodges the reverse-AD lowering bug of ``torch.export`` for ops
whose backward saves their output (pytorch#187907: the saved output is baked into the exported
graph as a constant)::

    sqrt:        y' = 1 / (2 sqrt(x))        exp:        y' = exp(x)
    tanh:        y' = 1 − tanh(x)²           reciprocal: y' = −1 / x²

Each is a ``torch.autograd.Function`` (``setup_context`` style, vmap rule generated) whose
backward is written with these same safe functions, so it is differentiable again (double
backward, Hessians) and stays output-free at every order. A custom ``jvp`` gives forward mode
(``torch.func.jvp/jacfwd``). Dynamo cannot trace a custom ``jvp``, so while compiling or
exporting a twin Function without it is used (reverse mode only, which is what export needs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

import torch

from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=TensorWrapper)
T = torch.Tensor


def _make(
    name: str, fn: Callable[[T], T], dfn: Callable[[T], T]
) -> tuple[type[torch.autograd.Function], type[torch.autograd.Function]]:
    """Reverse-only and reverse+forward Functions for ``fn`` with derivative ``dfn(x)``."""

    def forward(x: T) -> T:
        return fn(x)

    def setup_context(ctx: Any, inputs: tuple[T], output: T) -> None:
        ctx.save_for_backward(inputs[0])

    def backward(ctx: Any, g: T) -> T:
        (x,) = ctx.saved_tensors
        return g * dfn(x)

    def setup_context_fwd(ctx: Any, inputs: tuple[T], output: T) -> None:
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    def jvp(ctx: Any, dx: T) -> T:
        (x,) = ctx.saved_tensors
        return dx * dfn(x)

    body: dict[str, Any] = {
        "generate_vmap_rule": True,
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
        "__module__": __name__,
    }
    reverse = type(f"_{name}Reverse", (torch.autograd.Function,), body)
    both = type(
        f"_{name}",
        (reverse,),
        {
            "setup_context": staticmethod(setup_context_fwd),
            "jvp": staticmethod(jvp),
            "__module__": __name__,
        },
    )
    return reverse, both


def _dispatch(
    fns: tuple[type[torch.autograd.Function], type[torch.autograd.Function]],
) -> Callable[[T], T]:
    reverse, both = fns

    def apply(x: T) -> T:
        fn = reverse if torch.compiler.is_compiling() else both
        out: T = fn.apply(x)  # type: ignore[no-untyped-call]
        return out

    return apply


def _d_sqrt(x: T) -> T:
    return 0.5 * _reciprocal(_sqrt(x))


def _d_exp(x: T) -> T:
    return _exp(x)


def _d_tanh(x: T) -> T:
    t = _tanh(x)
    return 1.0 - t * t


def _d_reciprocal(x: T) -> T:
    r = _reciprocal(x)
    return -(r * r)


_sqrt = _dispatch(_make("Sqrt", torch.sqrt, _d_sqrt))
_exp = _dispatch(_make("Exp", torch.exp, _d_exp))
_tanh = _dispatch(_make("Tanh", torch.tanh, _d_tanh))
_reciprocal = _dispatch(_make("Reciprocal", torch.reciprocal, _d_reciprocal))


def _apply(fn: Callable[[T], T], a: Any, name: str) -> Any:
    if isinstance(a, torch.Tensor):
        return fn(a)
    if isinstance(a, TensorWrapper):
        return a._like(fn(a.data))
    raise TypeError(f"{name}: expected a torch.Tensor or a neml2 wrapper, got {type(a).__name__}")


@overload
def safe_sqrt(a: T) -> T: ...
@overload
def safe_sqrt(a: X) -> X: ...
def safe_sqrt(a: Any) -> Any:
    """``sqrt(a)``; derivative ``1/(2 sqrt(a))`` recomputed from ``a``."""
    return _apply(_sqrt, a, "safe_sqrt")


@overload
def safe_exp(a: T) -> T: ...
@overload
def safe_exp(a: X) -> X: ...
def safe_exp(a: Any) -> Any:
    """``exp(a)``; derivative ``exp(a)`` recomputed from ``a``."""
    return _apply(_exp, a, "safe_exp")


@overload
def safe_tanh(a: T) -> T: ...
@overload
def safe_tanh(a: X) -> X: ...
def safe_tanh(a: Any) -> Any:
    """``tanh(a)``; derivative ``1 − tanh(a)²`` recomputed from ``a``."""
    return _apply(_tanh, a, "safe_tanh")


@overload
def safe_reciprocal(a: T) -> T: ...
@overload
def safe_reciprocal(a: X) -> X: ...
def safe_reciprocal(a: Any) -> Any:
    """``1/a``; derivative ``−1/a²`` recomputed from ``a``."""
    return _apply(_reciprocal, a, "safe_reciprocal")
