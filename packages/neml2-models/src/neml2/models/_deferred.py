r"""Deferred tangent sums: contributions kept apart until a consumer needs the tangent.

A tangent is a sum of contributions, :math:`\dot y = \sum_i a_i\,b_i` (product terms and plain
tangents), that :func:`~neml2.models.chain_rule.accumulate` writes out in one pass over a
``(K, *B, *base)`` tensor. Three kinds of consumer do not need it written out:

* a *scaling* action :math:`\dot x \mapsto c\,\dot x` (:func:`scaled_by`; ``c`` a number or a
  :class:`~neml2.tensors.Scalar` coefficient, e.g. the :math:`-\Delta t` of a backward-Euler
  residual, a weight of a linear combination) distributes over the sum,
  :math:`c \sum_i a_i b_i = \sum_i (c\,a_i)\,b_i`, the scale going to the smaller factor, so
  the next sum of products absorbs every term and the intermediate tangent is never formed;
* any action on one constant times a tangent, by linearity
  :math:`g'(x)[s\,\dot x] = s\,g'(x)[\dot x]`, applies to :math:`\dot x` and scales its result;
* a pointwise linear map (:func:`linear_map`: an elastic stiffness) maps each part's factor of
  its input type, :math:`L(\sum_i a_i b_i) = \sum_i a_i\,L(b_i)` for Scalar :math:`a_i`.

Every other consumer gets the sum evaluated, once (:meth:`DeferredTangent.value`). Only tangents
large enough for the saved pass to outweigh the extra small products are deferred
(:data:`~neml2.models.chain_rule.DEFER_MIN_ELEMENTS`).

Who may see one: deferred tangents exist only inside :func:`call_deferring` (plain eager
evaluation of a model whose caller handles them, :class:`~neml2.es.NonlinearSystem`), and only
models that declare ``ACCEPTS_DEFERRED_TANGENTS`` (their ``forward`` hands tangents only to the
chain-rule helpers) receive them: :class:`~neml2.models.model.Model` evaluates them
(:func:`materialize`) before any other model sees its tangents.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import torch
from torch import nn

from neml2.models._typed import broadcast
from neml2.tensors import Scalar, TensorWrapper
from neml2.tensors.hooks import is_number as _is_number, plain_eager

__all__ = [
    "DeferredTangent",
    "LinearMap",
    "ProductTerm",
    "ScaleAction",
    "call_deferring",
    "deferring",
    "deferring_allowed",
    "is_constant",
    "linear_map",
    "materialize",
    "materialize_all",
    "scale_contribution",
    "scaled_by",
]

_PLAIN = (torch.Tensor, nn.Parameter)
_DEFER: ContextVar[bool] = ContextVar("neml2_defer_tangent_sums", default=False)


class ProductTerm:
    """A contribution ``a * b`` left unevaluated (see :func:`~neml2.models.chain_rule.
    product_term`)."""

    __slots__ = ("a", "b")

    def __init__(self, a: TensorWrapper | float, b: TensorWrapper) -> None:
        self.a = a
        self.b = b

    @property
    def sub_batch_ndim(self) -> int:
        """Sub-batch rank of the product."""
        a = self.a
        return (
            max(a.sub_batch_ndim, self.b.sub_batch_ndim)
            if isinstance(a, TensorWrapper)
            else self.b.sub_batch_ndim
        )

    def evaluate(self) -> Any:
        """``a * b``."""
        a: Any = self.a
        return a * self.b


class ScaleAction:
    """The chain-rule action :math:`\\dot x \\mapsto c\\,\\dot x` (see :func:`scaled_by`)."""

    __slots__ = ("c",)

    def __init__(self, c: Any) -> None:
        self.c = c

    def __call__(self, d: TensorWrapper) -> ProductTerm:
        return ProductTerm(self.c, d)


class LinearMap:
    """A chain-rule action that is a pointwise linear map ``L`` of its input type (see
    :func:`linear_map`)."""

    __slots__ = ("fn", "in_type")

    def __init__(self, in_type: type, fn: Callable[[Any], TensorWrapper]) -> None:
        self.in_type = in_type
        self.fn = fn

    def __call__(self, d: TensorWrapper) -> TensorWrapper:
        return self.fn(d)

    def distribute(self, parts: Sequence[Any]) -> tuple[Any, ...] | None:
        """``L`` of each part, ``L(a b) = a L(b)`` with ``a`` a Scalar factor: None unless every
        part is an ``in_type`` tangent or a product of one with a number or Scalar."""
        out: list[Any] = []
        for p in parts:
            if isinstance(p, ProductTerm):
                if _is_scalar_factor(p.a) and type(p.b) is self.in_type:
                    out.append(ProductTerm(p.a, self.fn(p.b)))
                elif _is_scalar_factor(p.b) and type(p.a) is self.in_type:
                    out.append(ProductTerm(self.fn(p.a), p.b))
                else:
                    return None
            elif type(p) is self.in_type:
                out.append(self.fn(p))
            else:
                return None
        return tuple(out)


def _is_scalar_factor(x: Any) -> bool:
    return type(x) is Scalar or _is_number(x)


def linear_map(in_type: type, fn: Callable[[Any], TensorWrapper]) -> LinearMap:
    r"""The action ``fn``, declared a pointwise linear map of ``in_type`` tensors that accepts
    any of them (tangents with K axes and plain values alike) and returns a wrapper.

    Over a :class:`DeferredTangent` it maps each part's ``in_type`` factor instead of the sum,
    :math:`L(\sum_i a_i b_i) = \sum_i a_i L(b_i)` for Scalar ``a_i``, so a sum consumed only
    by ``L`` and scalings is never written out (elasticity on a plastic strain rate).
    """
    return LinearMap(in_type, fn)


def scaled_by(c: Any) -> ScaleAction:
    """The action ``d -> c * d`` for a number or a :class:`~neml2.tensors.Scalar` ``c`` without
    K axes: a :func:`~neml2.models.chain_rule.product_term` that also distributes over a
    :class:`DeferredTangent` instead of evaluating it."""
    return ScaleAction(c)


def deferring_allowed() -> bool:
    """Whether tangents produced now may be left as :class:`DeferredTangent` s (never while
    compiling: tracing sees neither the flag nor the deferral)."""
    return not torch.compiler.is_compiling() and _DEFER.get()


@contextmanager
def deferring(enabled: bool) -> Iterator[None]:
    """Allow (or forbid) deferred tangents in the results of calls made inside the block."""
    token = _DEFER.set(enabled)
    try:
        yield
    finally:
        _DEFER.reset(token)


def call_deferring(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with deferred tangents allowed in its results, in plain eager
    mode (under compile/export tracing or a dispatch mode, a plain call)."""
    if not plain_eager():
        return fn(*args, **kwargs)
    token = _DEFER.set(True)
    try:
        return fn(*args, **kwargs)
    finally:
        _DEFER.reset(token)


def is_constant(a: Any) -> bool:
    """A Python number, or a 0-dimensional :class:`~neml2.tensors.Scalar` (a plain tensor or a
    parameter) in plain eager mode."""
    if _is_number(a):
        return True
    return (
        type(a) is Scalar
        and type(a.data) in _PLAIN
        and a.data.dim() == 0
        and a.k_ndim == 0
        and a.sub_batch_ndim == 0
        and plain_eager()
    )


def _times(a: Any, s: Any) -> Any:
    """``s * a`` for a factor ``a`` of a product (a number or a wrapper) and a scale ``s``."""
    return a * s if isinstance(a, TensorWrapper) or not isinstance(s, TensorWrapper) else s * a


def _scaled_size(f: Any, s: Any) -> float:
    """Elements of ``s * f`` (``f`` a factor, ``s`` a scale without K or base axes)."""
    if not isinstance(f, TensorWrapper):
        return s.data.numel() if isinstance(s, TensorWrapper) else 0
    if not isinstance(s, TensorWrapper):
        return f.data.numel()
    shape = f.data.shape
    lead, base = shape[: f.k_ndim], shape[f.data.dim() - f.BASE_NDIM :]
    try:
        batch = broadcast(shape[f.k_ndim : f.data.dim() - f.BASE_NDIM], s.data.shape)
    except RuntimeError:
        return math.inf
    return float(math.prod(lead) * math.prod(batch) * math.prod(base))


def _scale_one(c: Any, s: Any) -> Any:
    """``s`` times one contribution: on the factor of a product term that ``s`` enlarges least."""
    if isinstance(c, ProductTerm):
        if _scaled_size(c.a, s) <= _scaled_size(c.b, s):
            return ProductTerm(_times(c.a, s), c.b)
        return ProductTerm(c.a, _times(c.b, s))
    return ProductTerm(s, c)


def scale_contribution(result: Any, s: Any) -> Any:
    """``s`` times an action's contribution(s) (tangents and product terms), kept unevaluated.

    A product term ``a * b`` takes the scale on its smaller factor; a tangent ``c`` becomes the
    product term ``s * c``, which the accumulating sum fuses.
    """
    if isinstance(result, tuple):
        return tuple(_scale_one(c, s) for c in result)
    return _scale_one(result, s)


class DeferredTangent:
    """The tangent ``sum(parts)`` (tangents and :class:`ProductTerm` s), evaluated on demand."""

    __slots__ = ("_evaluate", "_value", "parts")

    def __init__(self, parts: Sequence[Any], evaluate: Callable[[list[Any]], Any]) -> None:
        self.parts = tuple(parts)
        self._evaluate = evaluate
        self._value: Any = None

    @property
    def constant_multiple(self) -> tuple[Any, TensorWrapper] | None:
        """``(s, x)`` when the tangent is one constant ``s`` times a tangent ``x``."""
        if len(self.parts) != 1:
            return None
        p = self.parts[0]
        if isinstance(p, ProductTerm) and is_constant(p.a) and isinstance(p.b, TensorWrapper):
            return p.a, p.b
        return None

    def with_parts(self, parts: Sequence[Any]) -> DeferredTangent:
        """Another deferred sum, of ``parts``, evaluated the same way."""
        return DeferredTangent(parts, self._evaluate)

    def value(self) -> Any:
        """The evaluated sum (computed once)."""
        if self._value is None:
            self._value = self._evaluate(list(self.parts))
        return self._value

    def apply(self, action: Callable[..., Any]) -> Any:
        """``action`` applied to this tangent: distributed over the parts for a scaling, applied
        to ``x`` and scaled for a constant multiple ``s x``, else applied to the value."""
        if isinstance(action, ScaleAction):
            if self._value is not None:  # already written out: one term
                return ProductTerm(action.c, self._value)
            return tuple(_scale_one(p, action.c) for p in self.parts)
        if isinstance(action, LinearMap) and self._value is None:
            mapped = action.distribute(self.parts)
            if mapped is not None:
                return mapped
        cm = self.constant_multiple
        if cm is not None:
            return scale_contribution(action(cm[1]), cm[0])
        return action(self.value())


def materialize(tree: Any) -> Any:
    """``tree`` (a tangent or nested dicts of them) with every :class:`DeferredTangent` evaluated.

    Returns ``tree`` itself when it holds none (the common case costs one scan).
    """
    if isinstance(tree, DeferredTangent):
        return tree.value()
    if isinstance(tree, Mapping):
        out = {k: materialize(x) for k, x in tree.items()}
        return tree if all(out[k] is x for k, x in tree.items()) else out
    return tree


def materialize_all(*trees: Any) -> tuple[Any, ...]:
    """:func:`materialize` of each argument (``None`` stays ``None``)."""
    return tuple(None if t is None else materialize(t) for t in trees)
