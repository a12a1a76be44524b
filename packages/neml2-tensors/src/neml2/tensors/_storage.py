"""Read-only properties of the stored ``torch.Tensor`` shared by the typed and dynamic tensors
and by their region views.

Storage layout is ``(*K, *batch, *sub, *base)``; ``k_shape`` is the leading ``k_ndim`` axes.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

import torch

__all__ = ["SpanView", "StorageProperties"]


class StorageProperties:
    """Mixin for a frozen dataclass holding ``data`` and ``k_ndim``."""

    data: torch.Tensor
    k_ndim: int

    @property
    def shape(self) -> torch.Size:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.dim()

    @property
    def dtype(self) -> torch.dtype:
        return self.data.dtype

    @property
    def device(self) -> torch.device:
        return self.data.device

    @property
    def k_shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape[: self.k_ndim])


S = TypeVar("S", bound=StorageProperties)


class SpanView(Generic[S]):
    """A region of ``wrapper``'s storage; subclasses give its ``(start, ndim)`` by :meth:`span`."""

    KIND: ClassVar[str] = ""
    __slots__ = ("wrapper",)

    def __init__(self, wrapper: S) -> None:
        self.wrapper = wrapper

    def span(self) -> tuple[int, int]:
        """(start, ndim) of the region in storage."""
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, ...]:
        start, n = self.span()
        return tuple(self.wrapper.data.shape[start : start + n])

    @property
    def ndim(self) -> int:
        return self.span()[1]
