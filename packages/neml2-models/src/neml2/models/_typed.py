"""Small helpers between raw tensors and typed wrappers used by the framework hot paths."""

from __future__ import annotations

import math
from typing import Any

import torch

from neml2.tensors import TensorWrapper
from neml2.tensors.hooks import broadcast_shapes

__all__ = [
    "as_type",
    "base_numel",
    "batch_shape",
    "broadcast",
    "drop_k",
    "identity_seed",
    "retag_sub",
    "with_k1",
]

FULL = ("full",)
NONE1 = (None,)


def as_type(cls: Any, value: Any, *, what: str = "value") -> Any:
    """Return ``value`` as a ``cls`` wrapper without re-wrapping when it already is one.

    Raw tensors and Python numbers are wrapped (numbers as float64); a wrapper of another type
    raises ``TypeError`` and a tensor of the wrong base shape ``ValueError``, both naming ``what``.
    """
    if type(value) is cls:
        return value
    if isinstance(value, TensorWrapper):
        raise TypeError(f"{what}: expected {cls.__name__}, got {type(value).__name__}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = torch.tensor(float(value), dtype=torch.float64)
    if isinstance(value, torch.Tensor):
        try:
            return cls(value)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    raise TypeError(f"{what}: expected {cls.__name__} or a tensor, got {type(value).__name__}")


def base_numel(cls: Any) -> int:
    """Number of storage components of one base entry of ``cls``."""
    return math.prod(cls.BASE_SHAPE)


def batch_shape(w: TensorWrapper) -> tuple[int, ...]:
    """Dynamic + sub batch shape of a primal (``k_ndim`` must be 0)."""
    d = w.data
    return tuple(d.shape[w.k_ndim : d.dim() - w.BASE_NDIM])


def identity_seed(w: TensorWrapper) -> TensorWrapper:
    """Plain identity seed for primal ``w``: data ``(n, 1…1, *base)`` with one full K axis."""
    cls = type(w)
    n = base_numel(cls)
    nb = w.data.dim() - w.BASE_NDIM
    eye = torch.eye(n, dtype=w.data.dtype, device=w.data.device)
    eye = eye.reshape(n, *([1] * nb), *cls.BASE_SHAPE)
    return cls._wrap(eye, w.sub_batch_ndim, (), (), 1, FULL, NONE1)


def with_k1(w: TensorWrapper) -> TensorWrapper:
    """A directional tangent ``w`` (no K) given one leading full K axis of size 1."""
    return type(w)._wrap(w.data.unsqueeze(0), w.sub_batch_ndim, (), (), 1, FULL, NONE1)


def drop_k(w: TensorWrapper) -> TensorWrapper:
    """Remove a leading size-1 K axis."""
    d = w.data.squeeze(0) if w.k_ndim else w.data
    return type(w)._wrap(d, w.sub_batch_ndim, w.sub_batch_state, w.sub_batch_meta, 0, (), ())


def retag_sub(w: TensorWrapper, n: int) -> TensorWrapper:
    """Give ``w`` exactly ``n`` sub-batch axes (extra ones fold into batch, missing ones are
    inserted as size-1 broadcast axes in front of the sub-batch region)."""
    m = w.sub_batch_ndim
    if m == n:
        return w
    if m > n:
        return w.sub_batch.retag(n)
    return w.sub_batch.unsqueeze(0, n - m)


def broadcast(*shapes: Any) -> tuple[int, ...]:
    """``torch.broadcast_shapes`` as a typed tuple."""
    return broadcast_shapes(*shapes)
