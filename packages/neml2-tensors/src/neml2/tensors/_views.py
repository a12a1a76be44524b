"""Region views ``w.batch / w.dynamic_batch / w.sub_batch / w.base / w.k``
(``docs/design/tensors.md``, "Regions").

A view is a transient handle naming one region of a wrapper; indexing and shape
ops address only that region's axes and always return a new wrapper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import torch

from neml2.tensors._storage import SpanView

if TYPE_CHECKING:
    from neml2.tensors._wrapper import TensorWrapper

W = TypeVar("W", bound="TensorWrapper")

Key = Any


def expand_key(key: Key, n: int, where: str) -> list[Any]:
    """Expand ``key`` to one entry per region axis (``None`` entries insert axes)."""
    items = list(key) if isinstance(key, tuple) else [key]
    for it in items:
        if not (it is None or it is Ellipsis or isinstance(it, (int, slice))):
            raise TypeError(f"{where}: unsupported index {it!r}; use int, slice, None or ...")
    consuming = sum(1 for it in items if it is not None and it is not Ellipsis)
    if items.count(Ellipsis) > 1:
        raise IndexError(f"{where}: at most one '...' allowed")
    if consuming > n:
        raise IndexError(f"{where}: too many indices ({consuming}) for a region with {n} axes")
    fill = [slice(None)] * (n - consuming)
    if Ellipsis in items:
        pos = items.index(Ellipsis)
        return items[:pos] + fill + items[pos + 1 :]
    return items + fill


def _region_key(start: int, entries: list[Any]) -> tuple[Any, ...]:
    return (slice(None),) * start + tuple(entries) + (Ellipsis,)


class RegionView(SpanView[W]):
    """Common part of all typed views: the wrapped object and the region's storage span."""

    __slots__ = ()

    def _pos(self, dim: int, extra: int = 0) -> int:
        """Normalize a region-relative ``dim`` (``extra`` allows one-past-the-end positions)."""
        n = self.ndim + extra
        d = dim + n if dim < 0 else dim
        if not 0 <= d < n:
            raise IndexError(
                f"{self.KIND} dim {dim} out of range for a region with {self.ndim} axes"
            )
        return d

    def __repr__(self) -> str:
        return f"<{self.KIND} view of {type(self.wrapper).__name__}, shape {self.shape}>"


class KView(RegionView[W]):
    """Leading seed (tangent) axes; read-only."""

    KIND = "k"
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        return 0, self.wrapper.k_ndim


class BaseView(RegionView[W]):
    """Trailing base axes; not indexable on fixed-base types."""

    KIND = "base"
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        w = self.wrapper
        return w.data.dim() - w.BASE_NDIM, w.BASE_NDIM

    def transpose(self, d0: int = -2, d1: int = -1) -> W:
        """Swap two base axes (only for base rank >= 2, e.g. R2, SSR4)."""
        w = self.wrapper
        if w.BASE_NDIM < 2:
            raise TypeError(f"{type(w).__name__}.base.transpose needs a base of rank >= 2")
        for d in (d0, d1):
            if not -w.BASE_NDIM <= d < w.BASE_NDIM:
                raise IndexError(f"{type(w).__name__}.base.transpose: dim {d} out of range")
        n = w.data.dim()
        a = d0 % w.BASE_NDIM + n - w.BASE_NDIM
        b = d1 % w.BASE_NDIM + n - w.BASE_NDIM
        return w._like(w.data.transpose(a, b))


class DynamicBatchView(RegionView[W]):
    """Dynamic batch axes B (sub-batch and K metadata untouched)."""

    KIND = "dynamic_batch"
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        w = self.wrapper
        return w.k_ndim, w.dynamic_batch_ndim

    def __getitem__(self, key: Key) -> W:
        w = self.wrapper
        start, n = self.span()
        entries = expand_key(key, n, f"{type(w).__name__}.dynamic_batch[...]")
        return w._like(w.data[_region_key(start, entries)])

    def unsqueeze(self, dim: int = -1, n: int = 1) -> W:
        """Insert ``n`` size-1 axes at region position ``dim`` (-1 = end)."""
        w = self.wrapper
        start, _ = self.span()
        pos = start + self._pos(dim, extra=1)
        shape = tuple(w.data.shape)
        return w._like(w.data.reshape(shape[:pos] + (1,) * n + shape[pos:]))

    def squeeze(self, dim: int) -> W:
        w = self.wrapper
        start, _ = self.span()
        pos = start + self._pos(dim)
        if w.data.shape[pos] != 1:
            raise ValueError(
                f"dynamic_batch.squeeze: axis {dim} has size {w.data.shape[pos]}, not 1"
            )
        return w._like(w.data.squeeze(pos))

    def expand(self, *shape: int) -> W:
        """Broadcast the dynamic batch to ``shape`` (left-pads with size-1 axes; contiguous)."""
        w = self.wrapper
        start, n = self.span()
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        if len(shape) < n:
            raise ValueError(
                f"dynamic_batch.expand: target {shape} has fewer axes than {self.shape}"
            )
        d = w.data
        full = tuple(d.shape)
        d = d.reshape(full[:start] + (1,) * (len(shape) - n) + full[start:])
        target = full[:start] + tuple(shape) + full[start + n :]
        return w._like(d.expand(target).contiguous())


class SubBatchView(RegionView[W]):
    """Sub-batch axes S (reports logical extents for "broadcast" axes)."""

    KIND = "sub_batch"
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        w = self.wrapper
        return w.data.dim() - w.BASE_NDIM - w.sub_batch_ndim, w.sub_batch_ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return self.wrapper.sub_batch_shape

    def _plain(self) -> W:
        from neml2.tensors._align import fullify

        return fullify(self.wrapper).materialize()

    def __getitem__(self, key: Key) -> W:
        w = self._plain()
        start, n = SubBatchView(w).span()
        entries = expand_key(key, n, f"{type(w).__name__}.sub_batch[...]")
        new_n = n - sum(isinstance(e, int) for e in entries) + sum(e is None for e in entries)
        data = w.data[_region_key(start, entries)]
        pairs = (None,) * w.k_ndim
        return type(w)._wrap(data, new_n, (), (), w.k_ndim, w.k_state, pairs)

    def unsqueeze(self, dim: int = -1, n: int = 1) -> W:
        """Insert ``n`` size-1 sub axes (tagged "broadcast", meta 1, if state is carried)."""
        w = self.wrapper
        start, _ = self.span()
        rel = self._pos(dim, extra=1)
        pos = start + rel
        shape = tuple(w.data.shape)
        sstate, smeta = w.sub_batch_state, w.sub_batch_meta
        if sstate:
            sstate = sstate[:rel] + ("broadcast",) * n + sstate[rel:]
            smeta = smeta[:rel] + (1,) * n + smeta[rel:]
        pairs = tuple(p + n if p is not None and p >= rel else p for p in w.k_pairing)
        data = w.data.reshape(shape[:pos] + (1,) * n + shape[pos:])
        return type(w)._wrap(data, w.sub_batch_ndim + n, sstate, smeta, w.k_ndim, w.k_state, pairs)

    def squeeze(self, dim: int) -> W:
        w = self.wrapper
        rel = self._pos(dim)
        if w.sub_batch_shape[rel] != 1:
            raise ValueError(
                f"sub_batch.squeeze: axis {dim} has extent {w.sub_batch_shape[rel]}, not 1"
            )
        if rel in w.k_pairing:
            raise ValueError(f"sub_batch.squeeze: axis {dim} is paired with a K axis")
        start, _ = self.span()
        sstate, smeta = w.sub_batch_state, w.sub_batch_meta
        if sstate:
            sstate = sstate[:rel] + sstate[rel + 1 :]
            smeta = smeta[:rel] + smeta[rel + 1 :]
        pairs = tuple(p - 1 if p is not None and p > rel else p for p in w.k_pairing)
        data = w.data.squeeze(start + rel)
        return type(w)._wrap(data, w.sub_batch_ndim - 1, sstate, smeta, w.k_ndim, w.k_state, pairs)

    def expand(self, *shape: int) -> W:
        """Broadcast (materialize) the sub-batch region to ``shape``."""
        w = self._plain()
        start, n = SubBatchView(w).span()
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        if len(shape) < n:
            raise ValueError(f"sub_batch.expand: target {shape} has fewer axes than {self.shape}")
        full = tuple(w.data.shape)
        extra = len(shape) - n
        d = w.data.reshape(full[:start] + (1,) * extra + full[start:])
        target = full[:start] + tuple(shape) + full[start + n :]
        pairs = (None,) * w.k_ndim
        return type(w)._wrap(d.expand(target), len(shape), (), (), w.k_ndim, w.k_state, pairs)

    def expand_at(self, size: int, dim: int = 0) -> W:
        """Insert a new materialized sub axis of extent ``size`` at region position ``dim``."""
        w = self.unsqueeze(dim, 1)
        rel = self._pos(dim, extra=1)
        start, _ = SubBatchView(w).span()
        target = list(w.data.shape)
        target[start + rel] = size
        sstate, smeta = w.sub_batch_state, w.sub_batch_meta
        if sstate:
            sstate = (*sstate[:rel], "full", *sstate[rel + 1 :])
            smeta = (*smeta[:rel], size, *smeta[rel + 1 :])
        return type(w)._wrap(
            w.data.expand(target), w.sub_batch_ndim, sstate, smeta, w.k_ndim, w.k_state, w.k_pairing
        )

    def diagonalize(self) -> W:
        """Scalar-like only: embed the last sub axis on a diagonal (adds one sub axis)."""
        w = self._plain()
        if w.BASE_NDIM != 0:
            raise TypeError(
                f"sub_batch.diagonalize needs a Scalar-like wrapper, got {type(w).__name__}"
            )
        if w.sub_batch_ndim < 1:
            raise ValueError("sub_batch.diagonalize needs at least one sub-batch axis")
        data = torch.diag_embed(w.data)
        return type(w)._wrap(data, w.sub_batch_ndim + 1, (), (), w.k_ndim, w.k_state, w.k_pairing)

    def retag(self, n: int) -> W:
        """Mark the trailing ``n`` batch axes as sub-batch."""
        return self.wrapper.with_sub_batch_ndim(n)

    def flatten(self) -> W:
        """Fold all sub axes into the dynamic batch (``retag(0)``)."""
        return self.wrapper.with_sub_batch_ndim(0)


class BatchView(RegionView[W]):
    """Dynamic batch + sub-batch (B+S); indexable, shape ops are ambiguous here."""

    KIND = "batch"
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        w = self.wrapper
        return w.k_ndim, w.data.dim() - w.k_ndim - w.BASE_NDIM

    def __getitem__(self, key: Key) -> W:
        from neml2.tensors._align import fullify

        w = fullify(self.wrapper).materialize()
        start, n = self.span()
        dyn = n - w.sub_batch_ndim
        entries = expand_key(key, n, f"{type(w).__name__}.batch[...]")
        axis = 0
        new_sub = 0
        in_sub = False
        for e in entries:
            if e is None:
                new_sub += int(in_sub)
                continue
            in_sub = axis >= dyn
            if in_sub and isinstance(e, slice):
                new_sub += 1
            axis += 1
        data = w.data[_region_key(start, entries)]
        return type(w)._wrap(data, new_sub, (), (), w.k_ndim, w.k_state, (None,) * w.k_ndim)

    def _ambiguous(self, *_: Any, **__: Any) -> Any:
        raise TypeError(
            "batch.unsqueeze/squeeze/expand are ambiguous; use .dynamic_batch or .sub_batch instead"
        )

    unsqueeze = _ambiguous
    squeeze = _ambiguous
    expand = _ambiguous
