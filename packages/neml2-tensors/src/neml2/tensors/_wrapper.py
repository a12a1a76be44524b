"""`TensorWrapper`: the abstract typed wrapper with shape regions.

Storage layout of every wrapper::

    data.shape = (*K, *B, *S, *b)
                 k_ndim  dynamic batch  sub_batch_ndim  BASE_NDIM

Metadata: ``sub_batch_state``/``sub_batch_meta`` carry a per-axis
``"full" | "broadcast"`` tag and logical extent (empty tuples mean "no state", i.e.
all full); ``k_state``/``k_pairing`` tag the leading seed axes of tangents.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import torch

from neml2.tensors._kernels import broadcast_tensors
from neml2.tensors._storage import StorageProperties
from neml2.tensors._views import (
    BaseView,
    BatchView,
    DynamicBatchView,
    KView,
    SubBatchView,
)

FULL = "full"
BROADCAST = "broadcast"
_STATES = (FULL, BROADCAST)

W = TypeVar("W", bound="TensorWrapper")


def _to_tensor(
    value: Any, dtype: torch.dtype | None, device: torch.device | str | None
) -> torch.Tensor:
    """Convert a Python number/list (float64 by default) or a tensor to a tensor."""
    if isinstance(value, torch.Tensor):
        if dtype is None and device is None:
            return value
        return value.to(dtype=dtype, device=device)
    if isinstance(value, TensorWrapper):
        return _to_tensor(value.data, dtype, device)
    if isinstance(value, (list, tuple)) and any(
        isinstance(v, (torch.Tensor, TensorWrapper)) for v in value
    ):
        parts = [_to_tensor(v, dtype, device) for v in value]
        parts = list(broadcast_tensors(*parts))
        return torch.stack(parts, dim=-1)
    return torch.tensor(value, dtype=torch.float64 if dtype is None else dtype, device=device)


@dataclass(frozen=True, eq=False, init=False, repr=False)
class TensorWrapper(StorageProperties):
    """Abstract base: a torch tensor with K / dynamic batch / sub-batch / base regions."""

    BASE_NDIM: ClassVar[int] = 0
    BASE_SHAPE: ClassVar[tuple[int, ...]] = ()

    data: torch.Tensor
    sub_batch_ndim: int
    sub_batch_state: tuple[str, ...]
    sub_batch_meta: tuple[int, ...]
    k_ndim: int
    k_state: tuple[str, ...]
    k_pairing: tuple[int | None, ...]

    def __init__(
        self,
        data: Any,
        *components: Any,
        sub_batch_ndim: int | None = None,
        sub_batch_state: Sequence[str] | None = None,
        sub_batch_meta: Sequence[int] | None = None,
        k_ndim: int | None = None,
        k_state: Sequence[str] | None = None,
        k_pairing: Sequence[int | None] | None = None,
        dtype: torch.dtype | None = None,
        device: torch.device | str | None = None,
    ) -> None:
        cls = type(self)
        if cls is TensorWrapper:
            raise TypeError("TensorWrapper is abstract; construct a concrete type such as SR2")
        inherited: dict[str, Any] = {}
        if components:
            data = _to_tensor([data, *components], dtype, device)
        elif isinstance(data, TensorWrapper):
            if type(data) is not cls:
                raise TypeError(
                    f"{cls.__name__}: cannot wrap a {type(data).__name__}; "
                    f"convert it explicitly (e.g. with a conversion function)"
                )
            inherited = {
                "sub_batch_ndim": data.sub_batch_ndim,
                "sub_batch_state": data.sub_batch_state,
                "sub_batch_meta": data.sub_batch_meta,
                "k_ndim": data.k_ndim,
                "k_state": data.k_state,
                "k_pairing": data.k_pairing,
            }
            data = _to_tensor(data.data, dtype, device)
        elif not isinstance(data, torch.Tensor) and hasattr(data, "as_typed"):
            raise TypeError(
                f"{cls.__name__}: cannot wrap a dynamic-base Tensor directly; use .as_typed({cls.__name__})"
            )
        else:
            data = _to_tensor(data, dtype, device)
        given = {
            "sub_batch_ndim": sub_batch_ndim,
            "sub_batch_state": None if sub_batch_state is None else tuple(sub_batch_state),
            "sub_batch_meta": None if sub_batch_meta is None else tuple(sub_batch_meta),
            "k_ndim": k_ndim,
            "k_state": None if k_state is None else tuple(k_state),
            "k_pairing": None if k_pairing is None else tuple(k_pairing),
        }
        for name, value in given.items():
            if value is None or name not in inherited:
                continue
            old = inherited[name]
            if name == "sub_batch_state":
                n = inherited["sub_batch_ndim"]
                old = old or (FULL,) * n
                value = value or (FULL,) * n
            if value != old:
                raise ValueError(
                    f"{cls.__name__}: explicit {name}={given[name]!r} disagrees with the wrapped "
                    f"{cls.__name__}'s {name}={inherited[name]!r}"
                )
        merged = {**inherited, **{k: v for k, v in given.items() if v is not None}}
        sb = int(merged.get("sub_batch_ndim", 0))
        kn = int(merged.get("k_ndim", 0))
        self._set(
            data,
            sb,
            tuple(merged.get("sub_batch_state", ())),
            tuple(merged.get("sub_batch_meta", ())),
            kn,
            tuple(merged.get("k_state", (FULL,) * kn)),
            tuple(merged.get("k_pairing", (None,) * kn)),
        )
        self._validate()

    def _set(
        self,
        data: torch.Tensor,
        sb: int,
        sstate: tuple[str, ...],
        smeta: tuple[int, ...],
        kn: int,
        kstate: tuple[str, ...],
        kpair: tuple[int | None, ...],
    ) -> None:
        osa = object.__setattr__
        osa(self, "data", data)
        osa(self, "sub_batch_ndim", sb)
        osa(self, "sub_batch_state", sstate)
        osa(self, "sub_batch_meta", smeta)
        osa(self, "k_ndim", kn)
        osa(self, "k_state", kstate)
        osa(self, "k_pairing", kpair)

    def _validate(self) -> None:
        name = type(self).__name__
        d = self.data
        if not isinstance(d, torch.Tensor):
            raise TypeError(f"{name}: data must be a torch.Tensor, got {type(d).__name__}")
        nb = self.BASE_NDIM
        if d.dim() < nb or tuple(d.shape[d.dim() - nb :]) != self.BASE_SHAPE:
            raise ValueError(
                f"{name}: expected trailing base shape {self.BASE_SHAPE}, got tensor of shape "
                f"{tuple(d.shape)}"
            )
        sb, kn = self.sub_batch_ndim, self.k_ndim
        if sb < 0 or kn < 0 or sb + kn + nb > d.dim():
            raise ValueError(
                f"{name}: sub_batch_ndim={sb} and k_ndim={kn} do not fit a tensor of shape "
                f"{tuple(d.shape)} with base shape {self.BASE_SHAPE}"
            )
        if self.sub_batch_state and len(self.sub_batch_state) != sb:
            raise ValueError(
                f"{name}: sub_batch_state {self.sub_batch_state} must have {sb} entries"
            )
        if len(self.sub_batch_meta) != len(self.sub_batch_state):
            raise ValueError(
                f"{name}: sub_batch_meta {self.sub_batch_meta} must match sub_batch_state"
            )
        if len(self.k_state) != kn or len(self.k_pairing) != kn:
            raise ValueError(
                f"{name}: k_state {self.k_state} and k_pairing {self.k_pairing} must have k_ndim={kn} entries"
            )
        for s in (*self.sub_batch_state, *self.k_state):
            if s not in _STATES:
                raise ValueError(
                    f"{name}: invalid region state {s!r}; expected 'full' or 'broadcast'"
                )
        for i, p in enumerate(self.k_pairing):
            if p is None:
                continue
            if not isinstance(p, int) or not 0 <= p < sb:
                raise ValueError(
                    f"{name}: k_pairing[{i}]={p!r} is not a sub-batch axis in [0, {sb})"
                )
            if self.k_state[i] == BROADCAST and d.shape[i] != 1:
                raise ValueError(
                    f"{name}: paired broadcast K axis {i} must have storage size 1, got {d.shape[i]}"
                )

    @classmethod
    def _wrap(
        cls: type[W],
        data: torch.Tensor,
        sb: int = 0,
        sstate: tuple[str, ...] = (),
        smeta: tuple[int, ...] = (),
        kn: int = 0,
        kstate: tuple[str, ...] = (),
        kpair: tuple[int | None, ...] = (),
    ) -> W:
        """Unchecked fast constructor used internally by all ops."""
        obj = object.__new__(cls)
        osa = object.__setattr__
        osa(obj, "data", data)
        osa(obj, "sub_batch_ndim", sb)
        osa(obj, "sub_batch_state", sstate)
        osa(obj, "sub_batch_meta", smeta)
        osa(obj, "k_ndim", kn)
        osa(obj, "k_state", kstate)
        osa(obj, "k_pairing", kpair)
        return obj

    def _like(self, data: torch.Tensor, cls: type[W] | None = None) -> W:
        """Wrap ``data`` (same K/batch/sub layout, possibly another base) keeping all metadata."""
        target: Any = type(self) if cls is None else cls
        out: W = target._wrap(
            data,
            self.sub_batch_ndim,
            self.sub_batch_state,
            self.sub_batch_meta,
            self.k_ndim,
            self.k_state,
            self.k_pairing,
        )
        return out

    def _rewrap(
        self: W,
        data: torch.Tensor,
        sub_batch_ndim: int | None = None,
        k_ndim: int | None = None,
        k_state: tuple[str, ...] | None = None,
        k_pairing: tuple[int | None, ...] | None = None,
    ) -> W:
        """Rewrap with changed regions; sub state survives only if ``sub_batch_ndim`` is unchanged."""
        sb = self.sub_batch_ndim if sub_batch_ndim is None else sub_batch_ndim
        kn = self.k_ndim if k_ndim is None else k_ndim
        if kn != self.k_ndim and (k_state is None or k_pairing is None):
            raise ValueError("_rewrap: changing k_ndim requires explicit k_state and k_pairing")
        keep = sb == self.sub_batch_ndim
        return type(self)._wrap(
            data,
            sb,
            self.sub_batch_state if keep else (),
            self.sub_batch_meta if keep else (),
            kn,
            self.k_state if k_state is None else k_state,
            self.k_pairing if k_pairing is None else k_pairing,
        )

    # ------------------------------------------------------------------ shapes
    @property
    def requires_grad(self) -> bool:
        return self.data.requires_grad

    @property
    def base_shape(self) -> tuple[int, ...]:
        return self.BASE_SHAPE

    @property
    def aligns_by_broadcasting(self) -> bool:
        """No sub-batch state and no paired K axis: ops align this wrapper by plain broadcasting."""
        return not self.sub_batch_state and self.k_pairing.count(None) == self.k_ndim

    @property
    def dynamic_batch_ndim(self) -> int:
        return self.data.dim() - self.k_ndim - self.sub_batch_ndim - self.BASE_NDIM

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape[self.k_ndim : self.data.dim() - self.BASE_NDIM])

    @property
    def dynamic_batch_shape(self) -> tuple[int, ...]:
        k = self.k_ndim
        return tuple(self.data.shape[k : k + self.dynamic_batch_ndim])

    @property
    def sub_batch_shape(self) -> tuple[int, ...]:
        start = self.data.dim() - self.BASE_NDIM - self.sub_batch_ndim
        storage = tuple(self.data.shape[start : start + self.sub_batch_ndim])
        if not self.sub_batch_state:
            return storage
        return tuple(
            m if st == BROADCAST else n
            for n, st, m in zip(storage, self.sub_batch_state, self.sub_batch_meta, strict=True)
        )

    # ------------------------------------------------------------------- views
    @property
    def batch(self: W) -> BatchView[W]:
        return BatchView(self)

    @property
    def dynamic_batch(self: W) -> DynamicBatchView[W]:
        return DynamicBatchView(self)

    @property
    def sub_batch(self: W) -> SubBatchView[W]:
        return SubBatchView(self)

    @property
    def base(self: W) -> BaseView[W]:
        return BaseView(self)

    @property
    def k(self: W) -> KView[W]:
        return KView(self)

    # ------------------------------------------------------- metadata changes
    def with_sub_batch_ndim(self: W, n: int) -> W:
        """Mark the trailing ``n`` batch axes as sub-batch (per-axis state reset)."""
        if n < 0 or n > self.data.dim() - self.k_ndim - self.BASE_NDIM:
            raise ValueError(
                f"{type(self).__name__}: cannot mark {n} sub-batch axes on batch shape {self.batch_shape}"
            )
        pairing = tuple(p if p is not None and p < n else None for p in self.k_pairing)
        return type(self)._wrap(self.data, n, (), (), self.k_ndim, self.k_state, pairing)

    def materialize(self: W) -> W:
        """Expand every "broadcast" sub-batch axis to its logical extent."""
        if BROADCAST not in self.sub_batch_state:
            return self
        start = self.data.dim() - self.BASE_NDIM - self.sub_batch_ndim
        shape = list(self.data.shape)
        for i, (st, m) in enumerate(zip(self.sub_batch_state, self.sub_batch_meta, strict=True)):
            if st == BROADCAST:
                shape[start + i] = m
        return type(self)._wrap(
            self.data.expand(shape),
            self.sub_batch_ndim,
            (FULL,) * self.sub_batch_ndim,
            self.sub_batch_meta,
            self.k_ndim,
            self.k_state,
            self.k_pairing,
        )

    # --------------------------------------------------------- tensor helpers
    def to(self: W, *args: Any, **kwargs: Any) -> W:
        """Move/cast the storage (``torch.Tensor.to`` semantics)."""
        return self._like(self.data.to(*args, **kwargs))

    def detach(self: W) -> W:
        return self._like(self.data.detach())

    def clone(self: W) -> W:
        return self._like(self.data.clone())

    def contiguous(self: W) -> W:
        return self._like(self.data.contiguous())

    def requires_grad_(self: W, requires_grad: bool = True) -> W:
        self.data.requires_grad_(requires_grad)
        return self

    def numel(self) -> int:
        return int(self.data.numel())

    def tolist(self) -> Any:
        return self.data.tolist()

    def item(self) -> float | int | bool:
        return self.data.item()

    def __repr__(self) -> str:
        extra = ""
        if self.sub_batch_ndim:
            extra += f", sub_batch_ndim={self.sub_batch_ndim}"
        if self.k_ndim:
            extra += f", k_ndim={self.k_ndim}"
        return f"{type(self).__name__}({self.data!r}{extra})"

    def __bool__(self) -> bool:
        return bool(self.data)

    def __len__(self) -> int:
        return len(self.data)


def prod(shape: Sequence[int]) -> int:
    """Product of a shape (1 for an empty shape)."""
    return math.prod(shape)
