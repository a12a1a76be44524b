r"""Seeds and Jacobian-block extraction for :mod:`neml2.es.nonlinear_system`.

A column group of width :math:`W` is one seed leaf. A variable at offset :math:`o` gets the
columns :math:`o \dots o+n` of :math:`I_W`:

* no sub-batch: data ``(W, 1…1, *base)``, one full K axis;
* sub-batch ``S`` in a *dense* group (``n = prod(S)·prod(base)``): data ``(W, 1…1, *S, *base)``,
  one full K axis (sites materialized);
* sub-batch ``S`` in a *block* group: per-site seed — ``len(S)`` paired broadcast K axes (the
  implicit :math:`\delta(k_s, s)`) then the full ``W`` axis.

A residual tangent ``(*K, *B_t, *S_t, *base_r)`` becomes the block ``(*B, *sub, m, W)`` of
:class:`~neml2.es.AssembledMatrix` (``sub`` = the row group's sub-batch for a block row, else the
column group's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from neml2.tensors import TensorWrapper, fullify

__all__ = ["conform", "extract_block", "fit_rest", "make_seed"]

_BROADCAST = "broadcast"
_FULL = "full"


def make_seed(
    cls: type[TensorWrapper],
    width: int,
    offset: int,
    sub: tuple[int, ...],
    nbatch: int,
    per_site: bool,
    like: torch.Tensor,
) -> TensorWrapper:
    """Seed of one variable (columns ``offset…`` of ``eye(width)``), see the module docstring."""
    base = tuple(cls.BASE_SHAPE)
    ns = len(sub)
    n = math.prod(base) * (1 if per_site else math.prod(sub))
    cols = torch.eye(width, dtype=like.dtype, device=like.device)[:, offset : offset + n]
    if per_site and ns:
        d = cols.reshape((1,) * ns + (width,) + (1,) * nbatch + (1,) * ns + base)
        kstate = (_BROADCAST,) * ns + (_FULL,)
        kpair: tuple[int | None, ...] = (*range(ns), None)
        return cls._wrap(d, ns, (_BROADCAST,) * ns, sub, ns + 1, kstate, kpair)
    d = cols.reshape((width,) + (1,) * nbatch + sub + base)
    return cls._wrap(d, ns, (), (), 1, (_FULL,), (None,))


def fit_rest(
    d: torch.Tensor,
    k: int,
    t_sub: int,
    batch: Sequence[int],
    sub: Sequence[int],
    nbase: int,
) -> torch.Tensor:
    """Expand the ``(*dyn, *sub, *base)`` part after ``k`` leading axes to ``(*batch, *sub,
    *base)`` (dynamic and sub-batch regions aligned separately)."""
    shp = tuple(d.shape)
    nd = len(shp)
    dyn = shp[k : nd - nbase - t_sub]
    tsub = shp[nd - nbase - t_sub : nd - nbase]
    base = shp[nd - nbase :]
    if len(dyn) > len(batch) or len(tsub) > len(sub):
        raise ValueError(
            f"tangent/value with batch {dyn} and sub-batch {tsub} does not fit batch "
            f"{tuple(batch)} and sub-batch {tuple(sub)}"
        )
    new = (*shp[:k], *(1,) * (len(batch) - len(dyn)), *dyn, *(1,) * (len(sub) - len(tsub)), *tsub)
    return d.reshape((*new, *base)).expand((*shp[:k], *batch, *sub, *base))


def conform(name: str, x: TensorWrapper, sub: tuple[int, ...]) -> TensorWrapper:
    """``x`` with exactly the sub-batch ``sub``: an unbatched value is expanded; an unmarked
    batched value (or one with another sub-batch) is rejected."""
    if tuple(x.sub_batch_shape) == sub:
        return x
    d = x.data
    if x.sub_batch_ndim == 0 and d.dim() == x.BASE_NDIM:
        return type(x)._wrap(d.expand((*sub, *d.shape)), len(sub))
    if x.sub_batch_ndim == len(sub):
        try:
            d = fit_rest(d, 0, len(sub), d.shape[: d.dim() - x.BASE_NDIM - len(sub)], sub,
                         x.BASE_NDIM)  # fmt: skip
            return type(x)._wrap(d, len(sub))
        except (ValueError, RuntimeError):
            pass
    if x.sub_batch_ndim == 0:
        raise ValueError(
            f"variable '{name}': expected sub-batch shape {sub}, got a batched value of shape "
            f"{tuple(d.shape)} without sub-batch axes (mark them, e.g. "
            f"{type(x).__name__}(data, sub_batch_ndim={len(sub)}))"
        )
    raise ValueError(
        f"variable '{name}': expected sub-batch shape {sub}, got {tuple(x.sub_batch_shape)}"
    )


def extract_block(
    t: TensorWrapper,
    batch: Sequence[int],
    row_sub: tuple[int, ...],
    row_block: bool,
    col_sub: tuple[int, ...],
    col_block: bool,
    width: int,
) -> torch.Tensor:
    """Jacobian block ``(*batch, *block_sub, m, width)`` of one residual from its tangent."""
    nbase = t.BASE_NDIM
    nb = len(batch)
    ncs = len(col_sub) if col_block else 0
    paired = (
        ncs > 0
        and t.k_state[:ncs] == (_BROADCAST,) * ncs
        and t.k_pairing[:ncs] == tuple(range(ncs))
    )
    if ncs and row_block and paired and row_sub == col_sub:
        d = t.data.reshape(t.data.shape[ncs:])
        d = fit_rest(d, 1, t.sub_batch_ndim, batch, row_sub, nbase)
        d = d.reshape(width, *batch, *row_sub, -1)
        return d.movedim(0, -1)
    if ncs:
        t = fullify(t)
    k = t.k_ndim
    d = fit_rest(t.data, k, t.sub_batch_ndim, batch, row_sub, nbase)
    d = d.expand((*col_sub[:ncs], width, *d.shape[k:])) if ncs else d
    if not ncs:
        if row_block:
            return d.reshape(width, *batch, *row_sub, -1).movedim(0, -1)
        return d.reshape(width, *batch, -1).movedim(0, -1)
    s = math.prod(col_sub)
    if row_block:
        if row_sub != col_sub:
            raise ValueError(
                f"block groups with different sub-batch shapes {row_sub} and {col_sub} cannot "
                f"share a block-diagonal Jacobian block"
            )
        d = d.reshape(s, width, *batch, s, -1)
        idx = torch.arange(s, device=d.device)
        index: list[Any] = [slice(None)] * d.dim()
        index[0] = idx
        index[2 + nb] = idx
        d = d[tuple(index)]  # (s, width, *batch, m): separated advanced indices go first
        return d.movedim(1, -1).movedim(0, nb).reshape((*batch, *col_sub, -1, width))
    d = d.reshape(s, width, *batch, -1)
    return d.movedim(1, -1).movedim(0, nb).reshape((*batch, *col_sub, -1, width))
