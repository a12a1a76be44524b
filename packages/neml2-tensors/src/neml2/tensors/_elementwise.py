"""Elementwise functions on any wrapper (values on storage, metadata kept).

``heaviside(a) = (sign(a) + 1)/2`` (so ``H(0) = 1/2``); ``macaulay(a) = a H(a)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import torch

from neml2.tensors._align import binary
from neml2.tensors._kernels import broadcast_shapes
from neml2.tensors._wrapper import TensorWrapper

X = TypeVar("X", bound=TensorWrapper)


def _unary(fn: Callable[[torch.Tensor], torch.Tensor], name: str, doc: str) -> Callable[[X], X]:
    def op(a: X) -> X:
        if not isinstance(a, TensorWrapper):
            raise TypeError(f"{name}: expected a neml2 tensor wrapper, got {type(a).__name__}")
        return a._like(fn(a.data))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


sqrt = _unary(torch.sqrt, "sqrt", "Square root.")
exp = _unary(torch.exp, "exp", "Exponential.")
log = _unary(torch.log, "log", "Natural logarithm.")
log10 = _unary(torch.log10, "log10", "Base-10 logarithm.")
sin = _unary(torch.sin, "sin", "Sine.")
cos = _unary(torch.cos, "cos", "Cosine.")
tan = _unary(torch.tan, "tan", "Tangent.")
asin = _unary(torch.asin, "asin", "Arc sine.")
acos = _unary(torch.acos, "acos", "Arc cosine.")
atan = _unary(torch.atan, "atan", "Arc tangent.")
sinh = _unary(torch.sinh, "sinh", "Hyperbolic sine.")
cosh = _unary(torch.cosh, "cosh", "Hyperbolic cosine.")
tanh = _unary(torch.tanh, "tanh", "Hyperbolic tangent.")
reciprocal = _unary(torch.reciprocal, "reciprocal", "``1 / a``.")
abs = _unary(torch.abs, "abs", "Absolute value.")
sign = _unary(torch.sign, "sign", "Sign (0 at 0).")
heaviside = _unary(
    lambda d: 0.5 * (torch.sign(d) + 1.0), "heaviside", "``(sign(a) + 1)/2``; H(0) = 0.5."
)
macaulay = _unary(lambda d: d * (0.5 * (torch.sign(d) + 1.0)), "macaulay", "``a H(a)``.")


def _pow_arg(a: TensorWrapper, n: Any, name: str) -> Any:
    if isinstance(n, TensorWrapper):
        if n.BASE_NDIM != 0:
            raise TypeError(f"{name}: exponent must be a number or Scalar, got {type(n).__name__}")
        return n
    if isinstance(n, (int, float)):
        return n
    raise TypeError(f"{name}: exponent must be a number or Scalar, got {type(n).__name__}")


def pow(a: X, n: Any) -> X:
    """``a ** n`` with ``n`` a number or a Scalar."""
    e = _pow_arg(a, n, "pow")
    if isinstance(e, TensorWrapper):
        return binary(a, e, torch.pow, type(a), True)
    return a._like(torch.pow(a.data, e))


@torch.library.custom_op("neml2::opaque_pow", mutates_args=())
def _opaque_pow(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return torch.pow(x, n)


@_opaque_pow.register_fake
def _(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return torch.empty(broadcast_shapes(x.shape, n.shape), dtype=x.dtype, device=x.device)


def _opaque_pow_setup(
    ctx: Any, inputs: tuple[torch.Tensor, torch.Tensor], output: torch.Tensor
) -> None:
    ctx.save_for_backward(inputs[0], inputs[1], output)


def _sum_to(g: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    return g.sum_to_size(shape) if g.shape != shape else g


def _opaque_pow_backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x, n, y = ctx.saved_tensors
    gx = grad * n * _opaque_pow(x, n - 1.0)
    gn = grad * y * torch.log(torch.where(x > 0, x, torch.ones_like(x)))
    return _sum_to(gx, x.shape), _sum_to(gn, n.shape)


_opaque_pow.register_autograd(_opaque_pow_backward, setup_context=_opaque_pow_setup)


def opaque_pow(a: X, n: Any) -> X:
    """Same values as :func:`pow`, computed by an opaque custom op (compiler fusion barrier)."""
    e = _pow_arg(a, n, "opaque_pow")
    if isinstance(e, TensorWrapper):
        return binary(a, e, _opaque_pow, type(a), True)
    return a._like(_opaque_pow(a.data, torch.tensor(float(e), dtype=a.dtype, device=a.device)))


def clamp(a: X, lo: float | None = None, hi: float | None = None) -> X:
    """Clamp storage into ``[lo, hi]``."""
    return a._like(torch.clamp(a.data, lo, hi))
