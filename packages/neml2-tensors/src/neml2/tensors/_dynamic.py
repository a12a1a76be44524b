"""`Tensor`: dynamic-base block used by the equation-system / Jacobian layer
(``docs/design/tensors.md``, "Dynamic-base Tensor").

Layout ``(*K, *batch, *sub, *base)`` with ``base_ndim = ndim − k_ndim − batch_ndim −
sub_batch_ndim``. Not a `TensorWrapper`: ``Tensor(Tensor)`` is not unwrapped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from neml2.tensors._dynamic_views import DBaseView, DBatchView, DSubBatchView
from neml2.tensors._kernels import broadcast_shapes, broadcast_tensors
from neml2.tensors._storage import StorageProperties
from neml2.tensors._wrapper import FULL, TensorWrapper

TW = TypeVar("TW", bound=TensorWrapper)


@dataclass(frozen=True, eq=False, repr=False)
class Tensor(StorageProperties):
    """Tensor with a runtime base shape: ``(*K, *batch, *sub, *base)``."""

    data: torch.Tensor
    batch_ndim: int = 0
    sub_batch_ndim: int = 0
    sub_batch_state: tuple[str, ...] = ()
    sub_batch_meta: tuple[int, ...] = ()
    k_ndim: int = 0
    k_state: tuple[str, ...] | None = None
    k_pairing: tuple[int | None, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.data, torch.Tensor):
            raise TypeError(f"Tensor: data must be a torch.Tensor, got {type(self.data).__name__}")
        if self.k_state is None:
            object.__setattr__(self, "k_state", (FULL,) * self.k_ndim)
        if self.k_pairing is None:
            object.__setattr__(self, "k_pairing", (None,) * self.k_ndim)
        n = self.k_ndim + self.batch_ndim + self.sub_batch_ndim
        if min(self.k_ndim, self.batch_ndim, self.sub_batch_ndim) < 0 or n > self.data.dim():
            raise ValueError(
                f"Tensor: k_ndim={self.k_ndim}, batch_ndim={self.batch_ndim}, "
                f"sub_batch_ndim={self.sub_batch_ndim} do not fit a tensor of shape {tuple(self.data.shape)}"
            )

    @classmethod
    def _wrap(
        cls, data: torch.Tensor, batch_ndim: int = 0, sub_batch_ndim: int = 0, k_ndim: int = 0
    ) -> Tensor:
        obj = object.__new__(cls)
        osa = object.__setattr__
        osa(obj, "data", data)
        osa(obj, "batch_ndim", batch_ndim)
        osa(obj, "sub_batch_ndim", sub_batch_ndim)
        osa(obj, "sub_batch_state", ())
        osa(obj, "sub_batch_meta", ())
        osa(obj, "k_ndim", k_ndim)
        osa(obj, "k_state", (FULL,) * k_ndim)
        osa(obj, "k_pairing", (None,) * k_ndim)
        return obj

    def _like(self, data: torch.Tensor, batch: int | None = None, sub: int | None = None) -> Tensor:
        return Tensor._wrap(
            data,
            self.batch_ndim if batch is None else batch,
            self.sub_batch_ndim if sub is None else sub,
            self.k_ndim,
        )

    # ------------------------------------------------------------------ shapes
    @property
    def base_ndim(self) -> int:
        return self.data.dim() - self.k_ndim - self.batch_ndim - self.sub_batch_ndim

    @property
    def batch_shape(self) -> tuple[int, ...]:
        k = self.k_ndim
        return tuple(self.data.shape[k : k + self.batch_ndim])

    @property
    def sub_batch_shape(self) -> tuple[int, ...]:
        s = self.k_ndim + self.batch_ndim
        return tuple(self.data.shape[s : s + self.sub_batch_ndim])

    @property
    def base_shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape[self.data.dim() - self.base_ndim :])

    @property
    def batch(self) -> DBatchView:
        return DBatchView(self)

    @property
    def sub_batch(self) -> DSubBatchView:
        return DSubBatchView(self)

    @property
    def base(self) -> DBaseView:
        return DBaseView(self)

    # ----------------------------------------------------------- constructors
    @classmethod
    def from_typed(cls, w: TensorWrapper, batch_ndim: int | None = None) -> Tensor:
        """View a typed wrapper as a dynamic-base Tensor (base = the type's base)."""
        b = w.dynamic_batch_ndim if batch_ndim is None else batch_ndim
        return cls._wrap(w.data, b, w.sub_batch_ndim, w.k_ndim)

    def as_typed(self, cls: type[TW]) -> TW:
        """Re-wrap as fixed-base type ``cls`` (base shape must equal ``cls.BASE_SHAPE``)."""
        if self.base_shape != cls.BASE_SHAPE:
            raise ValueError(
                f"Tensor.as_typed: base shape {self.base_shape} does not match {cls.__name__}'s {cls.BASE_SHAPE}"
            )
        return cls._wrap(
            self.data,
            self.sub_batch_ndim,
            (),
            (),
            self.k_ndim,
            (FULL,) * self.k_ndim,
            (None,) * self.k_ndim,
        )

    @classmethod
    def zeros(
        cls,
        batch_shape: Sequence[int] = (),
        sub_batch_shape: Sequence[int] = (),
        base_shape: Sequence[int] = (),
        dtype: torch.dtype | None = None,
        device: torch.device | str | None = None,
    ) -> Tensor:
        """Zeros with the given regions (float64 by default)."""
        shape = (*batch_shape, *sub_batch_shape, *base_shape)
        data = torch.zeros(shape, dtype=torch.float64 if dtype is None else dtype, device=device)
        return cls._wrap(data, len(batch_shape), len(sub_batch_shape))

    @classmethod
    def zeros_like(cls, other: Tensor) -> Tensor:
        return other._like(torch.zeros_like(other.data))

    def new_zeros(
        self,
        batch_shape: Sequence[int] | None = None,
        sub_batch_shape: Sequence[int] | None = None,
        base_shape: Sequence[int] | None = None,
    ) -> Tensor:
        """Zeros with this tensor's dtype/device and (unless given) region shapes."""
        b = self.batch_shape if batch_shape is None else tuple(batch_shape)
        s = self.sub_batch_shape if sub_batch_shape is None else tuple(sub_batch_shape)
        base = self.base_shape if base_shape is None else tuple(base_shape)
        return Tensor.zeros(b, s, base, dtype=self.dtype, device=self.device)

    def clone(self) -> Tensor:
        return self._like(self.data.clone())

    def detach(self) -> Tensor:
        return self._like(self.data.detach())

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._like(self.data.to(*args, **kwargs))

    # -------------------------------------------------------------- alignment
    def _layout(self) -> tuple[int, int, int, int]:
        return self.k_ndim, self.batch_ndim, self.sub_batch_ndim, self.base_ndim

    @staticmethod
    def _align(
        ts: Sequence[Tensor], pad_base: bool = True
    ) -> tuple[list[torch.Tensor], int, int, int]:
        """Insert size-1 axes at the front of each region so ranks agree."""
        lays = [t._layout() for t in ts]
        km, bm, sm, nm = (max(v[i] for v in lays) for i in range(4))
        out = []
        for t, (k, b, s, n) in zip(ts, lays, strict=True):
            shp = tuple(t.data.shape)
            tn = nm if pad_base else n
            new = (
                (1,) * (km - k) + shp[:k] + (1,) * (bm - b) + shp[k : k + b]
                + (1,) * (sm - s) + shp[k + b : k + b + s] + (1,) * (tn - n) + shp[k + b + s :]
            )  # fmt: skip
            out.append(t.data.reshape(new) if new != shp else t.data)
        for d in out[1:]:
            if d.dtype != out[0].dtype or d.device != out[0].device:
                raise TypeError(
                    f"Tensor: dtype/device mismatch ({out[0].dtype}, {out[0].device}) vs ({d.dtype}, {d.device})"
                )
        return out, km, bm, sm

    def _binary(self, other: object, fn: Any, reflected: bool = False) -> Tensor:
        if isinstance(other, Tensor):
            (a, b), k, bn, s = Tensor._align([other, self] if reflected else [self, other])
            return Tensor._wrap(fn(a, b), bn, s, k)
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return self._like(fn(other, self.data) if reflected else fn(self.data, other))
        if isinstance(other, TensorWrapper):
            raise TypeError(
                f"Tensor: cannot combine with a {type(other).__name__}; use Tensor.from_typed"
            )
        raise TypeError(f"Tensor: unsupported operand type {type(other).__name__}")

    def __add__(self, o: object) -> Tensor:
        return self._binary(o, torch.add)

    def __radd__(self, o: object) -> Tensor:
        return self._binary(o, torch.add, True)

    def __sub__(self, o: object) -> Tensor:
        return self._binary(o, torch.sub)

    def __rsub__(self, o: object) -> Tensor:
        return self._binary(o, torch.sub, True)

    def __mul__(self, o: object) -> Tensor:
        return self._binary(o, torch.mul)

    def __rmul__(self, o: object) -> Tensor:
        return self._binary(o, torch.mul, True)

    def __truediv__(self, o: object) -> Tensor:
        return self._binary(o, torch.div)

    def __rtruediv__(self, o: object) -> Tensor:
        return self._binary(o, torch.div, True)

    def __neg__(self) -> Tensor:
        return self._like(-self.data)

    # ------------------------------------------------------------- linear algebra
    def _unfold_rhs(self, b: Tensor, what: str) -> Tensor:
        """Fold ``b``'s extra leading sub axes into its first base axis if that fixes the sizes."""
        if self.base_ndim != 2 or b.base_ndim not in (1, 2):
            raise ValueError(f"Tensor.{what}: need A.base_ndim == 2 and b.base_ndim in (1, 2)")
        n = self.base_shape[-1]
        if b.base_shape[0] == n:
            return b
        extra = b.sub_batch_ndim - self.sub_batch_ndim
        if extra > 0 and math.prod(b.sub_batch_shape[:extra]) * b.base_shape[0] == n:
            s0 = b.k_ndim + b.batch_ndim
            d = b.data
            perm = list(range(d.dim()))
            moved = perm[s0 : s0 + extra]
            rest = perm[s0 + extra : d.dim() - b.base_ndim]
            perm = perm[:s0] + rest + moved + perm[d.dim() - b.base_ndim :]
            d = d.permute(perm)
            d = d.flatten(d.dim() - b.base_ndim - extra, d.dim() - b.base_ndim)
            return Tensor._wrap(d, b.batch_ndim, b.sub_batch_ndim - extra, b.k_ndim)
        raise ValueError(
            f"Tensor.{what}: contraction size mismatch {self.base_shape} vs {b.base_shape}"
        )

    def __matmul__(self, other: Tensor) -> Tensor:
        """Matrix product over the base (A base 2-D; B base 1-D or 2-D)."""
        b = self._unfold_rhs(other, "matmul")
        (x, y), k, bn, s = Tensor._align([self, b], pad_base=False)
        if b.base_ndim == 1:
            return Tensor._wrap(torch.matmul(x, y.unsqueeze(-1)).squeeze(-1), bn, s, k)
        return Tensor._wrap(torch.matmul(x, y), bn, s, k)

    def solve(self, rhs: Tensor) -> Tensor:
        """``A⁻¹ b`` by ``torch.linalg.solve`` (same unfolding rule as ``@``)."""
        b = self._unfold_rhs(rhs, "solve")
        (x, y), k, bn, s = Tensor._align([self, b], pad_base=False)
        if b.base_ndim == 1:
            x, y = broadcast_tensors(x, y.unsqueeze(-1))
            return Tensor._wrap(torch.linalg.solve(x, y[..., 0]), bn, s, k)
        shp = broadcast_shapes(x.shape[:-2], y.shape[:-2])
        return Tensor._wrap(
            torch.linalg.solve(x.expand((*shp, *x.shape[-2:])), y.expand((*shp, *y.shape[-2:]))),
            bn,
            s,
            k,
        )

    # ----------------------------------------------------------------- reshapes
    def flatten_base(self) -> Tensor:
        """Flatten the base to one axis (a 0-d base becomes size 1)."""
        n = self.base_ndim
        if n == 0:
            return self._like(self.data.unsqueeze(-1))
        return self._like(self.data.flatten(self.data.dim() - n))

    def unflatten_base(self, *shape: int) -> Tensor:
        """Reshape the base to ``shape``."""
        d = self.data
        return self._like(d.reshape((*d.shape[: d.dim() - self.base_ndim], *shape)))

    def flatten_sub_batch(self) -> Tensor:
        """Fold all sub axes into one new leading base axis."""
        s0 = self.k_ndim + self.batch_ndim
        d = self.data
        if self.sub_batch_ndim == 0:
            return self._like(d.unsqueeze(s0), sub=0)
        d = d.flatten(s0, s0 + self.sub_batch_ndim - 1)
        return self._like(d, sub=0)

    def flatten_sub_batch_into_first_base_axis(self) -> Tensor:
        """Merge all sub axes with the first base axis."""
        t = self.flatten_sub_batch()
        if self.base_ndim == 0:
            return t
        s0 = t.k_ndim + t.batch_ndim
        return t._like(t.data.flatten(s0, s0 + 1))

    def fold_preserving(self, into: str = "base", shape: Sequence[int] | None = None) -> Tensor:
        """Fold the K (seed-direction) axes into another region; batch, sub-batch and base keep
        their order, sizes and meaning.

        * ``into="base"`` (Jacobian blocks): ``(*K, *B, *S, *b) → (*B, *S, *b, *shape)``. The K
          axes become trailing base axes, i.e. the columns of ``∂out/∂in``: pushing an identity
          seed of input ``x`` (``K = prod(x.base)``) through a model and folding with
          ``shape = x.base`` gives the block ``(*B, *S, *out_base, *in_base)`` of
          ``Model.jacobian``; ``flatten_base()`` first gives the equation-system block
          ``(*B, *S, m, n)``.
        * ``into="batch"``: ``(*K, *B, *S, *b) → (*shape, *B, *S, *b)`` with the former K axes
          counted as leading batch axes (no data movement), e.g. to hand K right-hand sides to
          batched linear algebra.

        ``shape`` (default: the K shape) reshapes the folded axes; its product must equal
        ``prod(K)``. K axes paired with sub axes (per-site seeds, stored with size 1) fold as they
        are stored, so the result holds the per-site diagonal blocks with ``S`` untouched.
        """
        kshape = self.k_shape
        target = kshape if shape is None else tuple(int(n) for n in shape)
        if math.prod(target) != math.prod(kshape):
            raise ValueError(
                f"Tensor.fold_preserving: shape {target} does not hold the K shape {kshape}"
            )
        k = self.k_ndim
        if into == "batch":
            d = self.data.reshape((*target, *self.data.shape[k:]))
            return Tensor._wrap(d, len(target) + self.batch_ndim, self.sub_batch_ndim, 0)
        if into != "base":
            raise ValueError(
                f"Tensor.fold_preserving: into must be 'base' or 'batch', got {into!r}"
            )
        d = self.data.movedim(tuple(range(k)), tuple(range(-k, 0))) if k else self.data
        d = d.reshape((*d.shape[: d.dim() - k], *target))
        return Tensor._wrap(d, self.batch_ndim, self.sub_batch_ndim, 0)

    def __getitem__(self, key: Any) -> Tensor:
        raise TypeError(
            "Tensor: index a region view instead (t.batch[...], t.sub_batch[...], t.base[...])"
        )

    def __repr__(self) -> str:
        return (
            f"Tensor({self.data!r}, batch_ndim={self.batch_ndim}, sub_batch_ndim={self.sub_batch_ndim}, "
            f"k_ndim={self.k_ndim})"
        )
