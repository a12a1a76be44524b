"""Alignment of wrappers before binary / n-ary ops (``docs/design/tensors.md``, "Alignment and
broadcasting").

Every operand is reshaped (size-1 axes only, always a view) to a common layout::

    (*K pad, *K) (*B pad, *B) (*S pad, *S) (*b, *base pad)

so that torch's right-aligned broadcasting combines K with K, dynamic batch with
dynamic batch, sub-batch with sub-batch and base with base. Sub-batch and K states
are combined per axis; a paired "broadcast" K axis that meets a "full" one (or, for
additive ops, an unpaired one) is first made explicit with :func:`fullify_axis`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import torch

from neml2.tensors._wrapper import BROADCAST, FULL, TensorWrapper

W = TypeVar("W", bound=TensorWrapper)

Meta = tuple[int, tuple[str, ...], tuple[int, ...], int, tuple[str, ...], tuple[int | None, ...]]


def check_compatible(a: torch.Tensor, b: torch.Tensor, what: str) -> None:
    """Raise if two storages differ in dtype or device (never cast silently)."""
    if a.dtype != b.dtype:
        raise TypeError(
            f"{what}: dtype mismatch ({a.dtype} vs {b.dtype}); convert explicitly with .to()"
        )
    if a.device != b.device:
        raise ValueError(
            f"{what}: device mismatch ({a.device} vs {b.device}); move operands explicitly"
        )


def fullify_axis(w: W, i: int) -> W:
    """Make paired broadcast K axis ``i`` explicit: expand to the sub extent times ``δ(k, s)``."""
    j = w.k_pairing[i]
    if j is None or w.k_state[i] != BROADCAST:
        return w
    d = w.data
    nd = d.dim()
    sub_pos = nd - w.BASE_NDIM - w.sub_batch_ndim + j
    n = w.sub_batch_shape[j]
    eye = torch.eye(n, dtype=d.dtype, device=d.device)
    shape = [1] * nd
    shape[i] = n
    shape[sub_pos] = n
    if i > sub_pos:
        eye = eye.T
    data = d * eye.reshape(shape)
    kstate = tuple(FULL if q == i else s for q, s in enumerate(w.k_state))
    kpair = tuple(None if q == i else p for q, p in enumerate(w.k_pairing))
    sstate = w.sub_batch_state
    if sstate:
        sstate = tuple(FULL if q == j else s for q, s in enumerate(sstate))
    return type(w)._wrap(data, w.sub_batch_ndim, sstate, w.sub_batch_meta, w.k_ndim, kstate, kpair)


def fullify(w: W) -> W:
    """Make every paired broadcast K axis explicit (``docs/design/tensors.md``, "Seed axes")."""
    for i in range(w.k_ndim):
        w = fullify_axis(w, i)
    return w


def _resolve_k(ws: list[TensorWrapper], kmax: int, multiplicative: bool) -> list[TensorWrapper]:
    """Fullify paired K axes that would otherwise be combined incorrectly."""
    smax = max(w.sub_batch_ndim for w in ws)
    for ax in range(kmax):
        entries: list[tuple[str, int | None]] = []
        for w in ws:
            i = ax - (kmax - w.k_ndim)
            if i < 0:
                entries.append((BROADCAST, None))
                continue
            p = w.k_pairing[i]
            entries.append((w.k_state[i], None if p is None else p + smax - w.sub_batch_ndim))
        pairs = {p for s, p in entries if p is not None and s == BROADCAST}
        if not pairs:
            continue
        any_full = any(s == FULL for s, _ in entries)
        unpaired = any(p is None for _, p in entries)
        if any_full or len(pairs) > 1 or (unpaired and not multiplicative):
            ws = [
                fullify_axis(w, ax - (kmax - w.k_ndim)) if ax - (kmax - w.k_ndim) >= 0 else w
                for w in ws
            ]
    return ws


def align(
    ws: Sequence[TensorWrapper], multiplicative: bool = True, pad_base: bool = True
) -> tuple[list[torch.Tensor], Meta]:
    """Reshape all storages to a common rank per region and combine the region metadata.

    With ``pad_base=False`` base axes are left alone (for contractions such as ``C @ e``).
    """
    wl = list(ws)
    kmax = max(w.k_ndim for w in wl)
    if kmax and any(w.k_pairing.count(None) != w.k_ndim for w in wl):
        wl = _resolve_k(wl, kmax, multiplicative)
    lays = []
    smax = dmax = bmax = 0
    for w in wl:
        shp = tuple(w.data.shape)
        k, s, nb = w.k_ndim, w.sub_batch_ndim, w.BASE_NDIM
        dn = len(shp) - k - s - nb
        lays.append((k, dn, s, nb, shp))
        smax = s if s > smax else smax
        dmax = dn if dn > dmax else dmax
        bmax = nb if nb > bmax else bmax
    datas = []
    for w, (k, dn, s, nb, shp) in zip(wl, lays, strict=True):
        d = w.data
        tb = bmax if pad_base else nb
        if (k, dn, s, nb) != (kmax, dmax, smax, tb) and shp:
            d = d.reshape(
                (1,) * (kmax - k) + shp[:k] + (1,) * (dmax - dn) + shp[k : k + dn]
                + (1,) * (smax - s) + shp[k + dn :] + (1,) * (tb - nb)
            )  # fmt: skip
        datas.append(d)
    ref = next((d for d in datas if d.dtype != torch.bool), datas[0])
    for d in datas:
        if d is not ref and (
            (d.dtype != ref.dtype and d.dtype != torch.bool) or d.device != ref.device
        ):
            check_compatible(ref, d, " and ".join(type(w).__name__ for w in wl))
    kstate, kpair = _combine_k(wl, kmax, smax)
    sstate: tuple[str, ...] = ()
    smeta: tuple[int, ...] = ()
    if smax and any(w.sub_batch_state for w in wl):
        sstate, smeta = _combine_sub(wl, datas, smax, bmax if pad_base else -1)
    return datas, (smax, sstate, smeta, kmax, kstate, kpair)


def _combine_k(
    wl: list[TensorWrapper], kmax: int, smax: int
) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """Per K axis: any "full" ⇒ "full" (pairing dropped); else "broadcast" with the pairing."""
    if not kmax:
        return (), ()
    carriers = [w for w in wl if w.k_ndim]
    first = carriers[0]
    if (
        first.k_ndim == kmax
        and all(
            w.k_state == first.k_state
            and w.k_pairing == first.k_pairing
            and w.sub_batch_ndim == smax
            for w in carriers[1:]
        )
        and (first.sub_batch_ndim == smax or first.k_pairing.count(None) == kmax)
    ):
        return first.k_state, first.k_pairing
    kstate: list[str] = []
    kpair: list[int | None] = []
    for ax in range(kmax):
        full = False
        pair: int | None = None
        for w in carriers:
            i = ax - (kmax - w.k_ndim)
            if i < 0:
                continue
            if w.k_state[i] == FULL:
                full = True
            p = w.k_pairing[i]
            if p is not None and pair is None:
                pair = p + smax - w.sub_batch_ndim
        kstate.append(FULL if full else BROADCAST)
        kpair.append(None if full else pair)
    return tuple(kstate), tuple(kpair)


def _combine_sub(
    wl: list[TensorWrapper], datas: list[torch.Tensor], smax: int, bmax: int
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Per sub axis: "broadcast" iff every stateful operand is; meta = first extent != 1."""
    st_l: list[str] = []
    me_l: list[int] = []
    for ax in range(smax):
        bcast = True
        meta = 1
        for w, d in zip(wl, datas, strict=True):
            i = ax - (smax - w.sub_batch_ndim)
            if w.sub_batch_state:
                if i >= 0:
                    bcast = bcast and w.sub_batch_state[i] == BROADCAST
                    ext = w.sub_batch_shape[i]
                else:
                    ext = 1
            elif d.dim():
                ext = d.shape[d.dim() - (bmax if bmax >= 0 else w.BASE_NDIM) - smax + ax]
            else:
                ext = 1
            if meta == 1 and ext != 1:
                meta = ext
        st_l.append(BROADCAST if bcast else FULL)
        me_l.append(meta)
    return tuple(st_l), tuple(me_l)


def nary(
    cls: type[W],
    fn: Callable[..., torch.Tensor],
    ws: Sequence[TensorWrapper],
    multiplicative: bool = True,
    extra: Sequence[Any] = (),
    pad_base: bool = True,
) -> W:
    """Apply ``fn`` to the aligned storages of ``ws`` and wrap the result as ``cls``."""
    datas, meta = align(ws, multiplicative, pad_base)
    return cls._wrap(fn(*datas, *extra), *meta)


def _kstate2(a: TensorWrapper, b: TensorWrapper, km: int) -> tuple[str, ...]:
    """Combined K state of two unpaired operands (padded axes count as "broadcast")."""
    sa, sb = a.k_state, b.k_state
    if sa == sb or not sb:
        return sa
    if not sa:
        return sb
    sa = (BROADCAST,) * (km - len(sa)) + sa
    sb = (BROADCAST,) * (km - len(sb)) + sb
    return tuple(FULL if FULL in (x, y) else BROADCAST for x, y in zip(sa, sb, strict=True))


def _plain2(
    a: TensorWrapper,
    b: TensorWrapper,
    fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    cls: type[W],
    pad_base: bool,
) -> W:
    """Two operands without sub-batch state or K pairings (the common tangent case)."""
    ad, bd = a.data, b.data
    ka, kb = a.k_ndim, b.k_ndim
    sa, sb = a.sub_batch_ndim, b.sub_batch_ndim
    na, nb = a.BASE_NDIM, b.BASE_NDIM
    da = ad.dim() - ka - sa - na
    db = bd.dim() - kb - sb - nb
    km = ka if ka > kb else kb
    sm = sa if sa > sb else sb
    dm = da if da > db else db
    bm = na if na > nb else nb
    ta = bm if pad_base else na
    tb = bm if pad_base else nb
    if (ka, da, sa, na) != (km, dm, sm, ta) and ad.dim():
        shp = tuple(ad.shape)
        ad = ad.reshape(
            (1,) * (km - ka) + shp[:ka] + (1,) * (dm - da) + shp[ka : ka + da]
            + (1,) * (sm - sa) + shp[ka + da :] + (1,) * (ta - na)
        )  # fmt: skip
    if (kb, db, sb, nb) != (km, dm, sm, tb) and bd.dim():
        shp = tuple(bd.shape)
        bd = bd.reshape(
            (1,) * (km - kb) + shp[:kb] + (1,) * (dm - db) + shp[kb : kb + db]
            + (1,) * (sm - sb) + shp[kb + db :] + (1,) * (tb - nb)
        )  # fmt: skip
    if km == 0:
        return cls._wrap(fn(ad, bd), sm)
    return cls._wrap(fn(ad, bd), sm, (), (), km, _kstate2(a, b, km), (None,) * km)


def binary(
    a: TensorWrapper,
    b: TensorWrapper,
    fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    cls: type[W],
    multiplicative: bool,
    pad_base: bool = True,
) -> W:
    """Binary op with fast paths for plain operands and for unpaired tangents."""
    ad = a.data
    bd = b.data
    if ad.device != bd.device or (
        ad.dtype != bd.dtype and ad.dtype != torch.bool and bd.dtype != torch.bool
    ):
        check_compatible(ad, bd, f"{type(a).__name__} and {type(b).__name__}")
    if a.sub_batch_ndim or b.sub_batch_ndim or a.k_ndim or b.k_ndim:
        if (
            a.sub_batch_state
            or b.sub_batch_state
            or a.k_pairing.count(None) != a.k_ndim
            or b.k_pairing.count(None) != b.k_ndim
        ):
            return nary(cls, fn, (a, b), multiplicative, pad_base=pad_base)
        return _plain2(a, b, fn, cls, pad_base)
    na = a.BASE_NDIM
    nb = b.BASE_NDIM
    if na != nb and pad_base:
        if na < nb and ad.dim():
            ad = ad.reshape(ad.shape + (1,) * (nb - na))
        elif nb < na and bd.dim():
            bd = bd.reshape(bd.shape + (1,) * (na - nb))
    return cls._wrap(fn(ad, bd))
