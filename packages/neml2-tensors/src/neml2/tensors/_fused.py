"""Fused multiply-accumulate of wrappers: ``acc + a * b`` without materializing ``a * b``.

In eager mode every wrapper op writes a full temporary, and the chain rule's typical update,
a per-point coefficient times a ``(K, *B, *base)`` tangent added to a running sum, is bound by
memory traffic: the product is written and read back once more by the sum. ``torch.addcmul``
(``torch.add(alpha=)`` for a Python number) reads the three operands and writes the result once;
in place it also reuses the sum's storage.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import torch

from neml2.tensors._align import align
from neml2.tensors._eager import plain_eager
from neml2.tensors._primitive import PrimitiveTensor
from neml2.tensors._wrapper import TensorWrapper

__all__ = ["addcmul"]

W = TypeVar("W", bound=TensorWrapper)


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
