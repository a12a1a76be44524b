"""Region views of the dynamic-base `Tensor`: ``t.batch``, ``t.sub_batch``, ``t.base``.

All three are indexable and support ``unsqueeze, squeeze, expand, broadcast_to, flip,
pad`` (zero pad) and functional ``set(key, other)``; ``t.base`` also ``transpose``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from neml2.tensors._kernels import broadcast_tensors, contract_base
from neml2.tensors._storage import SpanView
from neml2.tensors._views import expand_key

if TYPE_CHECKING:
    from neml2.tensors._dynamic import Tensor


class _DView(SpanView["Tensor"]):
    __slots__ = ()

    def span(self) -> tuple[int, int]:
        t = self.wrapper
        k, b, s = t.k_ndim, t.batch_ndim, t.sub_batch_ndim
        if self.KIND == "batch":
            return k, b
        if self.KIND == "sub_batch":
            return k + b, s
        return k + b + s, t.base_ndim

    def _make(self, data: torch.Tensor, n: int) -> Tensor:
        """Rewrap with this region's rank changed to ``n``."""
        t = self.wrapper
        b, s = t.batch_ndim, t.sub_batch_ndim
        if self.KIND == "batch":
            b = n
        elif self.KIND == "sub_batch":
            s = n
        return type(t)._wrap(data, b, s, t.k_ndim)

    def _abs(self, dim: int, extra: int = 0) -> int:
        start, n = self.span()
        m = n + extra
        d = dim + m if dim < 0 else dim
        if not 0 <= d < max(m, 1):
            raise IndexError(f"Tensor.{self.KIND}: dim {dim} out of range for {n} axes")
        return start + d

    def _key(self, key: Any) -> tuple[tuple[Any, ...], int]:
        start, n = self.span()
        entries = expand_key(key, n, f"Tensor.{self.KIND}[...]")
        new_n = n - sum(isinstance(e, int) for e in entries) + sum(e is None for e in entries)
        return (slice(None),) * start + tuple(entries) + (Ellipsis,), new_n

    def __getitem__(self, key: Any) -> Tensor:
        full, n = self._key(key)
        return self._make(self.wrapper.data[full], n)

    def set(self, key: Any, other: Tensor | torch.Tensor | float) -> Tensor:
        """Functional slice assignment: a copy with ``self[key] = other``."""
        full, _ = self._key(key)
        d = self.wrapper.data.clone()
        d[full] = other if isinstance(other, (torch.Tensor, int, float)) else other.data
        return self._make(d, self.ndim)

    def unsqueeze(self, dim: int = -1, n: int = 1) -> Tensor:
        pos = self._abs(dim, extra=1)
        shp = tuple(self.wrapper.data.shape)
        return self._make(
            self.wrapper.data.reshape(shp[:pos] + (1,) * n + shp[pos:]), self.ndim + n
        )

    def squeeze(self, dim: int) -> Tensor:
        pos = self._abs(dim)
        if self.wrapper.data.shape[pos] != 1:
            raise ValueError(
                f"Tensor.{self.KIND}.squeeze: axis {dim} has size {self.wrapper.data.shape[pos]}"
            )
        return self._make(self.wrapper.data.squeeze(pos), self.ndim - 1)

    def expand(self, *shape: int) -> Tensor:
        """Broadcast this region to ``shape`` (left-pads with size-1 axes)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        start, n = self.span()
        d = self.wrapper.data
        full = tuple(d.shape)
        if len(shape) < n:
            raise ValueError(
                f"Tensor.{self.KIND}.expand: target {shape} has fewer axes than {self.shape}"
            )
        d = d.reshape(full[:start] + (1,) * (len(shape) - n) + full[start:])
        return self._make(d.expand(full[:start] + tuple(shape) + full[start + n :]), len(shape))

    broadcast_to = expand

    def flip(self, dims: int | Sequence[int]) -> Tensor:
        ds = [dims] if isinstance(dims, int) else list(dims)
        return self._make(self.wrapper.data.flip([self._abs(d) for d in ds]), self.ndim)

    def pad(self, dim: int, before: int = 0, after: int = 0) -> Tensor:
        """Zero-pad axis ``dim`` of the region."""
        d = self.wrapper.data
        pos = self._abs(dim)
        spec = [0, 0] * (d.dim() - pos - 1) + [before, after]
        return self._make(torch.nn.functional.pad(d, spec), self.ndim)

    # hooks used by the module-level sum/mean/diff/stack/cat
    def _dyn_reduce(self, op: str, dims: Any, arg: Any) -> Tensor:
        n = self.span()[1]
        if dims is None:
            dims = list(range(n))
        ds = [dims] if isinstance(dims, int) else list(dims)
        pos = [self._abs(d) for d in ds]
        d = self.wrapper.data
        if op == "diff":
            return self._make(torch.diff(d, n=int(arg), dim=pos[0]), n)
        out = d.sum(pos, keepdim=bool(arg)) if op == "sum" else d.mean(pos, keepdim=bool(arg))
        return self._make(out, n if arg else n - len(pos))

    def _dyn_stack(self, views: list[Any], dim: int, op: str) -> Tensor:
        from neml2.tensors._dynamic import Tensor

        if any(type(v) is not type(self) for v in views):
            raise TypeError(f"{op}: all views must be the same region of dynamic Tensors")
        datas, k, b, s = Tensor._align([v.wrapper for v in views])
        t0 = Tensor._wrap(datas[0], b, s, k)
        view = type(self)(t0)
        if op == "stack":
            pos = view._abs(dim, extra=1)
            out = torch.stack(list(broadcast_tensors(*datas)), dim=pos)
            return view._make(out, view.ndim + 1)
        pos = view._abs(dim)
        return view._make(torch.cat(datas, dim=pos), view.ndim)


class DBatchView(_DView):
    KIND = "batch"
    __slots__ = ()


class DSubBatchView(_DView):
    KIND = "sub_batch"
    __slots__ = ()


class DBaseView(_DView):
    KIND = "base"
    __slots__ = ()

    def transpose(self, d0: int = -2, d1: int = -1) -> Tensor:
        return self._make(self.wrapper.data.transpose(self._abs(d0), self._abs(d1)), self.ndim)

    def _dyn_norm_sq(self) -> Tensor:
        start, n = self.span()
        d = self.wrapper.data
        return self._make((d * d).sum(list(range(start, start + n))) if n else d * d, 0)

    def _dyn_dot(self, other: DBaseView) -> Tensor:
        from neml2.tensors._dynamic import Tensor

        (a, b), k, bn, s = Tensor._align([self.wrapper, other.wrapper])
        n = a.dim() - k - bn - s
        return Tensor._wrap(contract_base(a, b, n) if n else a * b, bn, s, k)
