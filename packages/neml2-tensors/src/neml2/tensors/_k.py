"""Seed (K) axis machinery for forward-mode tangents (``docs/design/tensors.md``, "Seed axes").

A tangent of a ``T`` is a ``T`` with leading K axes. A *paired broadcast* K axis
(storage 1, ``k_pairing[i] = j``) stands for the implicit diagonal ``δ(k_i, s_j)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import torch

from neml2.tensors._align import fullify, fullify_axis
from neml2.tensors._wrapper import BROADCAST, FULL, TensorWrapper, prod

W = TypeVar("W", bound=TensorWrapper)


def identity_seed(w: W) -> W:
    """Plain identity seed: ``eye(n)`` on one full K axis, ``n = prod(BASE_SHAPE)``.

    Storage ``(n, *B, *S, *base)`` (expanded, not copied); sub-batch rank is kept.
    """
    n = prod(w.BASE_SHAPE)
    d = w.data
    eye = torch.eye(n, dtype=d.dtype, device=d.device)
    nbatch = d.dim() - w.BASE_NDIM
    seed = eye.reshape((n,) + (1,) * nbatch + w.BASE_SHAPE).expand((n, *d.shape))
    return type(w)._wrap(
        seed, w.sub_batch_ndim, w.sub_batch_state, w.sub_batch_meta, 1, (FULL,), (None,)
    )


def sub_batch_seed(w: W) -> W:
    """Per-site (block-diagonal) seed for a sub-batched primal.

    K = ``n_sub`` paired broadcast axes (storage 1, pairing ``i`` → sub axis ``i``) followed by
    one full base axis of size ``prod(BASE_SHAPE)``; sub axes are stored with size 1, tagged
    "broadcast" with the primal's sub extents as meta.
    """
    ns = w.sub_batch_ndim
    n = prod(w.BASE_SHAPE)
    d = w.data
    dyn = tuple(d.shape[: d.dim() - w.BASE_NDIM - ns])
    eye = torch.eye(n, dtype=d.dtype, device=d.device)
    shape = (1,) * ns + (n,) + (1,) * len(dyn) + (1,) * ns + w.BASE_SHAPE
    target = (1,) * ns + (n,) + dyn + (1,) * ns + w.BASE_SHAPE
    seed = eye.reshape(shape).expand(target)
    kstate = (BROADCAST,) * ns + (FULL,)
    kpair: tuple[int | None, ...] = (*range(ns), None)
    return type(w)._wrap(seed, ns, (BROADCAST,) * ns, w.sub_batch_shape, ns + 1, kstate, kpair)


def sum_sub_batch(t: W, axis: int = 0) -> W:
    """Sum over sub axis ``axis``; a paired broadcast K axis on it is *exposed* instead.

    Exposure: ``Σ_s T δ(k, s) = T[k]``, i.e. the sub axis moves into the K slot (state full).
    """
    ns = t.sub_batch_ndim
    j = axis + ns if axis < 0 else axis
    if not 0 <= j < ns:
        raise IndexError(
            f"sum over sub-batch axis {axis}: {type(t).__name__} has {ns} sub-batch axes"
        )
    d = t.data
    sub_pos = d.dim() - t.BASE_NDIM - ns + j
    extent = t.sub_batch_shape[j]
    paired = [i for i in range(t.k_ndim) if t.k_pairing[i] == j and t.k_state[i] == BROADCAST]
    kstate = list(t.k_state)
    if paired:
        i = paired[0]
        if d.shape[sub_pos] != extent:
            shp = list(d.shape)
            shp[sub_pos] = extent
            d = d.expand(shp)
        d = d.transpose(i, sub_pos).squeeze(sub_pos)
        kstate[i] = FULL
        pairs = [None if q == i else p for q, p in enumerate(t.k_pairing)]
    else:
        for i in range(t.k_ndim):
            if t.k_pairing[i] == j:
                t = fullify_axis(t, i)
        d = t.data
        if d.shape[sub_pos] != extent:
            d = d * float(extent)
        d = d.sum(sub_pos)
        pairs = list(t.k_pairing)
        kstate = list(t.k_state)
        pairs = [None if p == j else p for p in pairs]
    pairs = [p - 1 if p is not None and p > j else p for p in pairs]
    sstate, smeta = t.sub_batch_state, t.sub_batch_meta
    if sstate:
        sstate = sstate[:j] + sstate[j + 1 :]
        smeta = smeta[:j] + smeta[j + 1 :]
    return type(t)._wrap(d, ns - 1, sstate, smeta, t.k_ndim, tuple(kstate), tuple(pairs))


def equalize_tangent_k(ws: Sequence[W]) -> list[W]:
    """Bring tangents of one seed to a common K storage so they can be summed.

    Lower-K operands get leading size-1 axes; per K axis, if sizes or pairings differ,
    paired broadcast axes are :func:`fullify`-ed and size-1 axes tiled to the largest size.
    """
    wl = list(ws)
    if not wl:
        return wl
    kmax = max(w.k_ndim for w in wl)
    out: list[W] = []
    for w in wl:
        pad = kmax - w.k_ndim
        if pad:
            w = type(w)._wrap(
                w.data.reshape((1,) * pad + tuple(w.data.shape)),
                w.sub_batch_ndim,
                w.sub_batch_state,
                w.sub_batch_meta,
                kmax,
                (BROADCAST,) * pad + w.k_state,
                (None,) * pad + w.k_pairing,
            )
        out.append(w)
    for ax in range(kmax):
        keys = {(w.k_state[ax], w.k_pairing[ax], w.data.shape[ax]) for w in out}
        if len(keys) <= 1:
            continue
        out = [fullify_axis(w, ax) for w in out]
        size = max(w.data.shape[ax] for w in out)
        fixed: list[W] = []
        for w in out:
            n = w.data.shape[ax]
            if n not in (1, size):
                raise ValueError(
                    f"equalize_tangent_k: K axis {ax} has incompatible sizes {n} and {size}"
                )
            data = w.data
            if n == 1 and size != 1:
                shp = list(data.shape)
                shp[ax] = size
                data = data.expand(shp)
            kstate = tuple(FULL if q == ax else s for q, s in enumerate(w.k_state))
            fixed.append(
                type(w)._wrap(
                    data,
                    w.sub_batch_ndim,
                    w.sub_batch_state,
                    w.sub_batch_meta,
                    kmax,
                    kstate,
                    w.k_pairing,
                )
            )
        out = fixed
    return out


__all__ = ["equalize_tangent_k", "fullify", "identity_seed", "sub_batch_seed", "sum_sub_batch"]
