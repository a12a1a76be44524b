"""``AssembledVector``: one tensor per layout group.

Norms and dot products are per batch element: each group is reduced over its
trailing axes (``(n,)`` dense, ``(*sub, n)`` block) and the groups are summed,
``‖x‖ = sqrt(Σ_g Σ_trailing x_g²)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from neml2.es._layout import AxisGroup, AxisLayout, broadcast_batch
from neml2.tensors import flatten_from


def _trailing_dims(g: AxisGroup) -> tuple[int, ...]:
    return tuple(range(-g.trailing_ndim, 0))


def _expand_scalar(alpha: torch.Tensor, g: AxisGroup) -> torch.Tensor:
    """Append ``g.trailing_ndim`` unit axes to a per-batch-element tensor."""
    return alpha.reshape(alpha.shape + (1,) * g.trailing_ndim)


class AssembledVector:
    """Per-group tensors of one ``AxisLayout`` (``(*B, n)`` dense, ``(*B, *sub, n)`` block)."""

    __slots__ = ("layout", "tensors")

    def __init__(self, layout: AxisLayout, tensors: Sequence[torch.Tensor]) -> None:
        self.layout = layout
        self.tensors: tuple[torch.Tensor, ...] = tuple(tensors)
        if len(self.tensors) != len(layout.groups):
            raise ValueError(
                f"AssembledVector: {len(layout.groups)} groups in the layout but "
                f"{len(self.tensors)} tensors given"
            )
        for gi, (g, t) in enumerate(zip(layout.groups, self.tensors, strict=True)):
            if tuple(t.shape[t.ndim - g.trailing_ndim :]) != g.trailing_shape:
                raise ValueError(
                    f"AssembledVector: group {gi} {list(g.names)} expects trailing shape "
                    f"{g.trailing_shape}, got tensor of shape {tuple(t.shape)}"
                )

    @classmethod
    def _new(cls, layout: AxisLayout, tensors: tuple[torch.Tensor, ...]) -> AssembledVector:
        """Unchecked constructor for the hot paths."""
        out = cls.__new__(cls)
        out.layout = layout
        out.tensors = tensors
        return out

    # ---------------------------------------------------------------- packing
    @classmethod
    def pack(cls, layout: AxisLayout, values: Mapping[str, torch.Tensor]) -> AssembledVector:
        """Pack raw per-variable tensors ``(*B_v, *sub, *base)`` (batches broadcast)."""
        missing = [n for n in layout.names if n not in values]
        if missing:
            raise KeyError(f"AssembledVector.pack: missing variable(s) {missing}")
        bshapes = []
        for name in layout.names:
            v = layout.variable(name)
            t = values[name]
            nt = len(v.value_shape)
            if t.ndim < nt or tuple(t.shape[t.ndim - nt :]) != v.value_shape:
                raise ValueError(
                    f"AssembledVector.pack: variable '{name}' expects trailing shape "
                    f"(*sub, *base) = {v.value_shape}, got {tuple(t.shape)}"
                )
            bshapes.append(t.shape[: t.ndim - nt])
        batch = broadcast_batch(*bshapes)
        tensors = []
        for g in layout.groups:
            parts = []
            for v in g.variables:
                t = values[v.name]
                t = flatten_from(t, t.ndim - len(v.value_shape))
                if g.is_block:
                    t = t.reshape(t.shape[:-1] + v.sub_batch_shape + (v.base_size,))
                parts.append(t.expand(batch + t.shape[t.ndim - g.trailing_ndim :]))
            tensors.append(parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1))
        return cls._new(layout, tuple(tensors))

    def unpack(self) -> dict[str, torch.Tensor]:
        """Raw per-variable tensors ``(*B, *sub, *base)``."""
        out: dict[str, torch.Tensor] = {}
        for g, t in zip(self.layout.groups, self.tensors, strict=True):
            lead = t.shape[: t.ndim - g.trailing_ndim]
            for i, v in enumerate(g.variables):
                piece = t[..., g.offsets[i] : g.offsets[i + 1]]
                out[v.name] = piece.reshape(lead + v.value_shape)
        return out

    def flat(self) -> torch.Tensor:
        """All groups flattened and concatenated, ``(*B, N)`` (block groups site-major)."""
        parts = []
        batch = self.batch_shape
        for g, t in zip(self.layout.groups, self.tensors, strict=True):
            parts.append(t.expand(batch + g.trailing_shape).reshape((*batch, g.flat_size)))
        return parts[0] if len(parts) == 1 else torch.cat(parts, dim=-1)

    @classmethod
    def from_flat(cls, layout: AxisLayout, x: torch.Tensor) -> AssembledVector:
        """Inverse of :meth:`flat`."""
        batch = x.shape[:-1]
        if x.shape[-1] != layout.flat_size:
            raise ValueError(
                f"AssembledVector.from_flat: expected {layout.flat_size} entries, got {x.shape[-1]}"
            )
        tensors = []
        start = 0
        for g in layout.groups:
            tensors.append(x[..., start : start + g.flat_size].reshape(batch + g.trailing_shape))
            start += g.flat_size
        return cls._new(layout, tuple(tensors))

    @property
    def batch_shape(self) -> torch.Size:
        """Broadcast batch shape of the group tensors."""
        shapes = [
            t.shape[: t.ndim - g.trailing_ndim]
            for g, t in zip(self.layout.groups, self.tensors, strict=True)
        ]
        return shapes[0] if len(shapes) == 1 else broadcast_batch(*shapes)

    # ------------------------------------------------------------- reductions
    def dot(self, other: AssembledVector) -> torch.Tensor:
        """Per-element inner product ``Σ_g Σ_trailing x_g y_g``, shape ``(*B,)``."""
        acc: torch.Tensor | None = None
        for g, a, b in zip(self.layout.groups, self.tensors, other.tensors, strict=True):
            d = (a * b).sum(dim=_trailing_dims(g))
            acc = d if acc is None else acc + d
        assert acc is not None
        return acc

    def norm_sq(self) -> torch.Tensor:
        """Per-element squared norm ``‖x‖²``."""
        return self.dot(self)

    def norm(self) -> torch.Tensor:
        """Per-element norm ``‖x‖`` (one fused reduction per group)."""
        norms: list[torch.Tensor] = [
            torch.linalg.vector_norm(t, dim=_trailing_dims(g))
            for g, t in zip(self.layout.groups, self.tensors, strict=True)
        ]
        if len(norms) == 1:
            return norms[0]
        return torch.sqrt(sum((n * n for n in norms[1:]), norms[0] * norms[0]))

    # ------------------------------------------------------------ arithmetic
    def axpy(self, alpha: float | torch.Tensor, other: AssembledVector) -> AssembledVector:
        """``self + α·other``; ``α`` a number or a per-element tensor ``(*B,)``."""
        if isinstance(alpha, torch.Tensor):
            ts = tuple(
                a + _expand_scalar(alpha, g) * b
                for g, a, b in zip(self.layout.groups, self.tensors, other.tensors, strict=True)
            )
        else:
            ts = tuple(a + alpha * b for a, b in zip(self.tensors, other.tensors, strict=True))
        return AssembledVector._new(self.layout, ts)

    def scale(self, alpha: float | torch.Tensor) -> AssembledVector:
        """``α·self``; ``α`` a number or a per-element tensor ``(*B,)``."""
        if isinstance(alpha, torch.Tensor):
            ts = tuple(
                _expand_scalar(alpha, g) * a
                for g, a in zip(self.layout.groups, self.tensors, strict=True)
            )
        else:
            ts = tuple(alpha * a for a in self.tensors)
        return AssembledVector._new(self.layout, ts)

    def where(self, mask: torch.Tensor, other: AssembledVector) -> AssembledVector:
        """Per element: ``self`` where ``mask`` (``(*B,)`` bool) else ``other``."""
        ts = tuple(
            torch.where(_expand_scalar(mask, g), a, b)
            for g, a, b in zip(self.layout.groups, self.tensors, other.tensors, strict=True)
        )
        return AssembledVector._new(self.layout, ts)

    def __add__(self, other: AssembledVector) -> AssembledVector:
        ts = tuple(a + b for a, b in zip(self.tensors, other.tensors, strict=True))
        return AssembledVector._new(self.layout, ts)

    def __sub__(self, other: AssembledVector) -> AssembledVector:
        ts = tuple(a - b for a, b in zip(self.tensors, other.tensors, strict=True))
        return AssembledVector._new(self.layout, ts)

    def __neg__(self) -> AssembledVector:
        return AssembledVector._new(self.layout, tuple(-a for a in self.tensors))

    def zeros_like(self) -> AssembledVector:
        """A zero vector of the same layout and shapes."""
        return AssembledVector._new(self.layout, tuple(torch.zeros_like(a) for a in self.tensors))

    def clone(self) -> AssembledVector:
        """A copy with cloned storage."""
        return AssembledVector._new(self.layout, tuple(a.clone() for a in self.tensors))

    def __repr__(self) -> str:
        shapes = [tuple(t.shape) for t in self.tensors]
        return f"AssembledVector({self.layout!r}, shapes={shapes})"
