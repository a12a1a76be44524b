"""Region-aware reductions and constructors: ``sum, mean, diff, stack, cat, linspace, logspace``.

They take *views* (``w.dynamic_batch`` or ``w.sub_batch``) naming the region to act on;
never ``w.batch`` (ambiguous) or a fixed base. Reducing a sub axis drops it from the
sub-batch and renumbers K pairings (a paired broadcast K axis is exposed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from neml2.tensors._align import align, fullify
from neml2.tensors._k import sum_sub_batch
from neml2.tensors._kernels import broadcast_shapes, broadcast_tensors
from neml2.tensors._views import DynamicBatchView, RegionView, SubBatchView
from neml2.tensors._wrapper import TensorWrapper

_REGIONS = (DynamicBatchView, SubBatchView)


def _check_view(v: Any, fn: str) -> RegionView[Any]:
    if hasattr(v, "_dyn_reduce"):
        return v  # type: ignore[no-any-return]
    if isinstance(v, TensorWrapper):
        raise TypeError(
            f"{fn}: pass a region view (x.dynamic_batch or x.sub_batch), not a bare {type(v).__name__}"
        )
    if not isinstance(v, _REGIONS):
        kind = getattr(v, "KIND", type(v).__name__)
        raise TypeError(
            f"{fn}: cannot act on the '{kind}' region; use .dynamic_batch or .sub_batch"
        )
    return v


def _dims(d: int | Sequence[int], n: int, fn: str) -> list[int]:
    dims = [d] if isinstance(d, int) else list(d)
    out = []
    for x in dims:
        y = x + n if x < 0 else x
        if not 0 <= y < n:
            raise IndexError(f"{fn}: dim {x} out of range for a region with {n} axes")
        out.append(y)
    return sorted(set(out), reverse=True)


def sum(view: Any, dims: int | Sequence[int] | None = None, keepdim: bool = False) -> Any:
    """Sum over axes ``dims`` of the viewed region (None: axis 0; all axes for a base view)."""
    v = _check_view(view, "sum")
    if hasattr(v, "_dyn_reduce"):
        if dims is None and v.KIND != "base":
            dims = 0
        return v._dyn_reduce("sum", dims, keepdim)
    if dims is None:
        dims = 0
    w = v.wrapper
    start, n = v.span()
    ds = _dims(dims, n, "sum")
    if isinstance(v, DynamicBatchView):
        return w._like(w.data.sum([start + d for d in ds], keepdim=keepdim))
    for d in ds:
        w = sum_sub_batch(w, d)
    if keepdim:
        for d in sorted(ds):
            w = SubBatchView(w).unsqueeze(d)
    return w


def mean(view: Any, dim: int | Sequence[int] = 0, keepdim: bool = False) -> Any:
    """Mean over axes ``dim`` of the viewed region (logical extents for sub axes)."""
    v = _check_view(view, "mean")
    if hasattr(v, "_dyn_reduce"):
        return v._dyn_reduce("mean", dim, keepdim)
    ds = _dims(dim, v.ndim, "mean")
    count = 1
    for d in ds:
        count *= v.shape[d]
    return sum(v, ds, keepdim) / float(count)


def diff(view: Any, n: int = 1, dim: int = 0) -> Any:
    """``n``-th forward difference along one axis of the region (length shrinks by ``n``)."""
    v = _check_view(view, "diff")
    if hasattr(v, "_dyn_reduce"):
        return v._dyn_reduce("diff", dim, n)
    w = v.wrapper
    if isinstance(v, SubBatchView):
        w = fullify(w).materialize()
    start, nd = type(v)(w).span()
    d = _dims(dim, nd, "diff")[0]
    return w._like(torch.diff(w.data, n=n, dim=start + d))


def _aligned(
    views: Sequence[Any], fn: str
) -> tuple[list[torch.Tensor], Any, type[TensorWrapper], str]:
    vs = [_check_view(v, fn) for v in views]
    if not vs:
        raise ValueError(f"{fn}: need at least one view")
    kinds = {type(v) for v in vs}
    types = {type(v.wrapper) for v in vs}
    if len(kinds) != 1 or len(types) != 1:
        raise TypeError(f"{fn}: all views must share region kind and wrapper type")
    ws = [v.wrapper for v in vs]
    if isinstance(vs[0], SubBatchView):
        if len({w.sub_batch_ndim for w in ws}) != 1 and fn == "cat":
            raise ValueError("cat: views must have the same sub-batch rank")
        ws = [fullify(w).materialize() for w in ws]
    datas, meta = align(ws)
    return datas, meta, type(ws[0]), vs[0].KIND


def stack(views: Sequence[Any], dim: int = 0) -> Any:
    """Stack along a new axis inserted at region position ``dim``."""
    if views and hasattr(views[0], "_dyn_stack"):
        return views[0]._dyn_stack(list(views), dim, "stack")
    datas, meta, cls, kind = _aligned(views, "stack")
    smax, sstate, smeta, kmax, kstate, kpair = meta
    nb = cls.BASE_NDIM
    ref = datas[0]
    dyn = ref.dim() - kmax - smax - nb
    n = dyn if kind == "dynamic_batch" else smax
    d = dim + n + 1 if dim < 0 else dim
    if not 0 <= d <= n:
        raise IndexError(f"stack: dim {dim} out of range for a region with {n} axes")
    pos = kmax + d if kind == "dynamic_batch" else kmax + dyn + d
    datas = list(broadcast_tensors(*datas))
    out = torch.stack(datas, dim=pos)
    if kind == "dynamic_batch":
        return cls._wrap(out, smax, sstate, smeta, kmax, kstate, kpair)
    pairs = tuple(p + 1 if p is not None and p >= d else p for p in kpair)
    return cls._wrap(out, smax + 1, (), (), kmax, kstate, pairs)


def cat(views: Sequence[Any], dim: int = -1) -> Any:
    """Concatenate along existing axis ``dim`` of the viewed region (other axes broadcast)."""
    if views and hasattr(views[0], "_dyn_stack"):
        return views[0]._dyn_stack(list(views), dim, "cat")
    datas, meta, cls, kind = _aligned(views, "cat")
    smax, _, _, kmax, kstate, _ = meta
    nb = cls.BASE_NDIM
    ref = datas[0]
    dyn = ref.dim() - kmax - smax - nb
    n = dyn if kind == "dynamic_batch" else smax
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        raise IndexError(f"cat: dim {dim} out of range for a region with {n} axes")
    pos = kmax + d if kind == "dynamic_batch" else kmax + dyn + d
    shapes = [list(x.shape) for x in datas]
    for s in shapes:
        s[pos] = 1
    common = list(broadcast_shapes(*[torch.Size(s) for s in shapes]))
    parts = []
    for x in datas:
        tgt = list(common)
        tgt[pos] = x.shape[pos]
        parts.append(x.expand(tgt))
    out = torch.cat(parts, dim=pos)
    if kind == "dynamic_batch":
        return cls._wrap(out, *meta)
    return cls._wrap(out, smax, (), (), kmax, kstate, (None,) * kmax)


def _endpoint(x: Any) -> Any:
    if isinstance(x, TensorWrapper):
        return x.dynamic_batch
    return _check_view(x, "linspace")


def linspace(start: Any, end: Any, steps: int, dim: int = 0) -> Any:
    """``start + (end − start) i/(steps−1)`` along a new axis at ``dim`` of the endpoints' region.

    Endpoints are views (``a.dynamic_batch`` or ``a.sub_batch``); a bare wrapper means
    ``dynamic_batch``.
    """
    a, b = _endpoint(start), _endpoint(end)
    if type(a) is not type(b):
        raise TypeError("linspace: both endpoints must be views of the same region kind")
    lo, hi = stack([a], dim), stack([b], dim)
    datas, meta = align([lo, hi])
    smax, sstate, smeta, kmax, kstate, kpair = meta
    dyn = datas[0].dim() - kmax - smax - type(lo).BASE_NDIM
    n = dyn if a.KIND == "dynamic_batch" else smax
    d = dim + n if dim < 0 else dim
    pos = kmax + d if a.KIND == "dynamic_batch" else kmax + dyn + d
    t = torch.linspace(0.0, 1.0, steps, dtype=datas[0].dtype, device=datas[0].device)
    shape = [1] * datas[0].dim()
    shape[pos] = steps
    out = datas[0] + (datas[1] - datas[0]) * t.reshape(shape)
    return type(lo)._wrap(out, smax, sstate, smeta, kmax, kstate, kpair)


def logspace(start: Any, end: Any, steps: int, dim: int = 0, base: float = 10.0) -> Any:
    """``base ** linspace(start, end, steps, dim)`` (endpoints are exponents)."""
    lin = linspace(start, end, steps, dim)
    return lin._like(torch.pow(base, lin.data))
