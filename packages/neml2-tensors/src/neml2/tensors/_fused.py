"""Fused multiply-accumulate of wrappers: ``acc + a * b`` without materializing ``a * b``.

In eager mode every wrapper op writes a full temporary, and the chain rule's typical update,
a per-point coefficient times a ``(K, *B, *base)`` tangent added to a running sum, is bound by
memory traffic: the product is written and read back once more by the sum. ``torch.addcmul``
(``torch.add(alpha=)`` for a Python number) reads the three operands and writes the result once;
in place it also reuses the sum's storage. :func:`sum_products` goes further: a whole sum
``sum_i a_i b_i`` by a caller-supplied one-pass kernel (e.g. neml2-aoti's native
``sum_of_products``), written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import torch

from neml2.tensors._align import align
from neml2.tensors._eager import plain_eager
from neml2.tensors._primitive import PrimitiveTensor, _is_number
from neml2.tensors._wrapper import TensorWrapper

__all__ = ["ProductsKernel", "addcmul", "sum_products"]

W = TypeVar("W", bound=TensorWrapper)

ProductsKernel = Callable[
    [list[tuple[float, torch.Tensor | None, torch.Tensor]]], torch.Tensor | None
]
"""``terms -> sum(scale * a * b)`` on aligned storages (``a`` None: 1), or None when it does
not apply to these tensors (the caller then takes the ATen ops)."""


def _fusable(acc: TensorWrapper, a: TensorWrapper | float, b: TensorWrapper) -> bool:
    """``acc + a * b`` is plain broadcasting of floating storages and keeps ``acc``'s type."""
    ws = (acc, b) if isinstance(a, float) else (acc, a, b)
    if not all(isinstance(w, PrimitiveTensor) and w.aligns_by_broadcasting for w in ws):
        return False
    if not all(w.data.is_floating_point() for w in ws):
        return False
    if isinstance(a, float):
        return type(b) is type(acc)
    try:
        product = b._result(a, "*", reflected=True)  # type: ignore[attr-defined]
    except TypeError:
        return False
    return product is type(acc)


def _mutable(acc: torch.Tensor, *others: torch.Tensor) -> bool:
    """In-place update allowed: plain eager, no autograd recording on any operand."""
    if not plain_eager(acc, *others):
        return False
    return not (torch.is_grad_enabled() and any(t.requires_grad for t in (acc, *others)))


def _covers(acc: torch.Tensor, others: list[torch.Tensor]) -> bool:
    """``acc`` already has the broadcast shape of ``acc`` and ``others`` (aligned storages)."""
    shape = acc.shape
    return all(
        d.dim() <= acc.dim()
        and all(n in (1, m) for n, m in zip(reversed(d.shape), reversed(shape), strict=False))
        for d in others
    )


def addcmul(acc: W, a: TensorWrapper | float, b: TensorWrapper, *, inplace: bool = False) -> W:
    r"""``acc + a * b`` with the broadcasting of the wrapper ops, in one pass.

    .. math::  r = \mathrm{acc} + a\,b

    ``a`` is a wrapper or a Python float. With ``inplace`` (for an ``acc`` the caller owns and
    nobody else holds), ``acc``'s storage is updated when it already has the result's shape, in
    plain eager mode without autograd recording. Operands with sub-batch state or paired K axes,
    of integer dtype, or whose product is not of ``acc``'s type take the wrapper ops
    ``acc + a * b`` (same value, same errors).
    """
    if isinstance(a, int) and not isinstance(a, bool) and b.data.is_floating_point():
        a = float(a)
    if not _fusable(acc, a, b):
        lhs: Any = acc
        factor: Any = a
        return cast(W, lhs + factor * b)
    scale = isinstance(a, float)
    datas, meta = align((acc, b) if scale else (acc, a, b))  # type: ignore[arg-type]
    d0, rest = datas[0], datas[1:]
    if inplace and _covers(d0, rest) and _mutable(d0, *rest):
        if scale:
            d0.add_(rest[0], alpha=a)  # type: ignore[arg-type]
        else:
            d0.addcmul_(rest[0], rest[1])
        return type(acc)._wrap(d0, *meta)
    out = torch.add(d0, rest[0], alpha=a) if scale else torch.addcmul(d0, rest[0], rest[1])  # type: ignore[arg-type]
    return type(acc)._wrap(out, *meta)


def _product_type(a: TensorWrapper | float | None, b: TensorWrapper) -> type[TensorWrapper] | None:
    """The wrapper type of ``a * b`` (``b``'s for a number or None), None if not plain."""
    if not isinstance(a, TensorWrapper):
        return type(b)
    try:
        return b._result(a, "*", reflected=True)  # type: ignore[attr-defined,no-any-return]
    except TypeError:
        return None


def sum_products(
    terms: Sequence[tuple[TensorWrapper | float | None, TensorWrapper]],
    kernel: ProductsKernel | None,
) -> TensorWrapper | None:
    r"""``sum_i a_i b_i`` in one pass by ``kernel``, or None when that does not apply.

    .. math::  r = \sum_i a_i\,b_i \qquad (a_i \text{ a wrapper, a float, or None for } 1)

    Applies when every product has one plain wrapper type (the same for all terms), every
    wrapper operand aligns by broadcasting with a floating storage, and ``kernel`` accepts the
    aligned storages (its own device/dtype/recording checks). The caller falls back to the
    wrapper ops (:func:`addcmul`) on None; values agree up to rounding.
    """
    if kernel is None or len(terms) < 2:
        return None
    if any(not (a is None or isinstance(a, TensorWrapper) or _is_number(a)) for a, _ in terms):
        return None
    types = {_product_type(a, b) for a, b in terms}
    if len(types) != 1:
        return None
    cls = types.pop()
    if cls is None or not issubclass(cls, PrimitiveTensor):
        return None
    wrappers: list[TensorWrapper] = []
    for a, b in terms:
        wrappers.extend((a, b) if isinstance(a, TensorWrapper) else (b,))
    if not all(
        isinstance(w, PrimitiveTensor) and w.aligns_by_broadcasting and w.data.is_floating_point()
        for w in wrappers
    ):
        return None
    datas, meta = align(wrappers)
    it = iter(datas)
    packed = [
        (1.0 if a is None or isinstance(a, TensorWrapper) else float(a),
         next(it) if isinstance(a, TensorWrapper) else None,
         next(it))
        for a, _ in terms
    ]  # fmt: skip
    out = kernel(packed)
    return None if out is None else cls._wrap(out, *meta)
