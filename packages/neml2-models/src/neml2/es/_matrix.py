"""``AssembledMatrix``: a grid of blocks, one per (row group, column group).

Block ``(i, j)`` has shape ``(*B, *sub_ij, m_i, n_j)`` where ``m_i``/``n_j`` are the
group widths and ``sub_ij`` is the sub-batch of the block group involved (empty
when both groups are dense):

* dense × dense: ``(*B, m, n)``, an ordinary dense block;
* block × block (same sub-batch): ``(*B, *sub, m, n)``, block diagonal over sites;
* block row × dense column: ``(*B, *sub, m, n)``, site ``s`` rows against all columns;
* dense row × block column: ``(*B, *sub, m, n)``, all rows against site ``s`` columns.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import torch

from neml2.es._layout import AxisGroup, AxisLayout, broadcast_batch
from neml2.es._vector import AssembledVector


def block_sub(row: AxisGroup, col: AxisGroup) -> tuple[int, ...]:
    """Sub-batch shape carried by the block of a (row group, column group) pair."""
    if row.is_block and col.is_block and row.sub_batch_shape != col.sub_batch_shape:
        raise ValueError(
            f"AssembledMatrix: block groups {list(row.names)} and {list(col.names)} have "
            f"different sub-batch shapes {row.sub_batch_shape} and {col.sub_batch_shape}"
        )
    if row.is_block:
        return row.sub_batch_shape
    return col.sub_batch_shape if col.is_block else ()


def block_product(
    a: torch.Tensor, b: torch.Tensor, row_blk: bool, mid_blk: bool, col_blk: bool, nsub: int
) -> torch.Tensor:
    """Product of a (row, mid) block and a (mid, col) block in the storage above.

    A block ``mid`` group contracts site by site (summed over sites when neither
    outer group is a block group); a dense ``mid`` group broadcasts the dense side
    over the sites of the other. ``block @ dense @ block`` would couple all sites
    (not block diagonal) and is rejected.
    """
    if mid_blk:
        prod = a @ b
        if not row_blk and not col_blk:
            prod = prod.sum(dim=tuple(range(-2 - nsub, -2)))
        return prod
    if row_blk and col_blk:
        raise ValueError(
            "AssembledMatrix: a block-row x dense x block-column product couples all sites "
            "and cannot be stored as a block-diagonal block"
        )
    pad = (1,) * nsub
    if row_blk:
        b = b.reshape(b.shape[:-2] + pad + b.shape[-2:])
    elif col_blk:
        a = a.reshape(a.shape[:-2] + pad + a.shape[-2:])
    return a @ b


class MatrixPart(NamedTuple):
    """A block of the flat matrix: ``value (*B, rows, cols)`` at flat offsets ``(row, col)``."""

    row: int
    col: int
    value: torch.Tensor


_Blocks = tuple[tuple[torch.Tensor, ...], ...]


class AssembledMatrix:
    """Block matrix between a row layout and a column layout (storage in module doc)."""

    __slots__ = ("_assemble", "_blocks", "col_layout", "parts", "row_layout")

    def __init__(
        self,
        row_layout: AxisLayout,
        col_layout: AxisLayout,
        blocks: Sequence[Sequence[torch.Tensor]],
        *,
        check: bool = True,
    ) -> None:
        self.row_layout = row_layout
        self.col_layout = col_layout
        self._blocks: _Blocks | None = tuple(tuple(r) for r in blocks)
        self._assemble: Callable[[], Sequence[Sequence[torch.Tensor]]] | None = None
        #: Disjoint blocks of the flat matrix outside of which it is zero, when it was built
        #: from them (:meth:`from_parts`), else None.
        self.parts: tuple[MatrixPart, ...] | None = None
        if not check:
            return
        if len(self.blocks) != len(row_layout.groups) or any(
            len(r) != len(col_layout.groups) for r in self.blocks
        ):
            raise ValueError(
                f"AssembledMatrix: expected a {len(row_layout.groups)} x "
                f"{len(col_layout.groups)} grid of blocks"
            )
        for i, rg in enumerate(row_layout.groups):
            for j, cg in enumerate(col_layout.groups):
                want = (*block_sub(rg, cg), rg.width, cg.width)
                t = self.blocks[i][j]
                if t.ndim < len(want) or tuple(t.shape[t.ndim - len(want) :]) != want:
                    raise ValueError(
                        f"AssembledMatrix: block ({i}, {j}) [{rg.structure} {list(rg.names)} x "
                        f"{cg.structure} {list(cg.names)}] expects trailing shape {want}, "
                        f"got {tuple(t.shape)}"
                    )

    @classmethod
    def from_parts(
        cls,
        row_layout: AxisLayout,
        col_layout: AxisLayout,
        parts: Sequence[MatrixPart],
        assemble: Callable[[], Sequence[Sequence[torch.Tensor]]],
    ) -> AssembledMatrix:
        """A matrix known by its nonzero :class:`MatrixPart` s; :attr:`blocks` are built by
        ``assemble`` on first use (a direct solver that reads the parts never builds them)."""
        A = cls(row_layout, col_layout, (), check=False)
        A._blocks, A._assemble, A.parts = None, assemble, tuple(parts)
        return A

    @property
    def blocks(self) -> _Blocks:
        """The grid of blocks, one per (row group, column group)."""
        if self._blocks is None:
            assert self._assemble is not None
            self._blocks = tuple(tuple(r) for r in self._assemble())
            self._assemble = None
        return self._blocks

    def matrix(self) -> AssembledMatrix:
        """The assembled matrix itself (the ``LinearOperator`` protocol)."""
        return self

    @property
    def batch_shape(self) -> torch.Size:
        """Broadcast batch shape of all blocks."""
        shapes = []
        for i, rg in enumerate(self.row_layout.groups):
            for j, cg in enumerate(self.col_layout.groups):
                t = self.blocks[i][j]
                shapes.append(t.shape[: t.ndim - len(block_sub(rg, cg)) - 2])
        return broadcast_batch(*shapes)

    def matvec(self, x: AssembledVector) -> AssembledVector:
        """``y = A x`` with ``x`` on the column layout, ``y`` on the row layout."""
        out = []
        for i, rg in enumerate(self.row_layout.groups):
            acc: torch.Tensor | None = None
            for j, cg in enumerate(self.col_layout.groups):
                nsub = len(block_sub(rg, cg))
                y = block_product(
                    self.blocks[i][j], x.tensors[j].unsqueeze(-1), rg.is_block, cg.is_block,
                    False, nsub,
                ).squeeze(-1)  # fmt: skip
                acc = y if acc is None else acc + y
            assert acc is not None
            out.append(acc)
        return AssembledVector._new(self.row_layout, tuple(out))

    def transpose(self) -> AssembledMatrix:
        """``Aᵀ`` (rows and columns swapped; every storage kind maps onto its mirror)."""
        blocks = [
            [self.blocks[i][j].transpose(-1, -2) for i in range(len(self.row_layout.groups))]
            for j in range(len(self.col_layout.groups))
        ]
        return AssembledMatrix(self.col_layout, self.row_layout, blocks, check=False)

    def diagonal(self) -> AssembledVector:
        """Main diagonal (square layouts with matching groups only)."""
        if self.row_layout != self.col_layout:
            raise ValueError("AssembledMatrix.diagonal: row and column layouts differ")
        ts = tuple(
            torch.diagonal(self.blocks[i][i], dim1=-2, dim2=-1)
            for i in range(len(self.row_layout.groups))
        )
        return AssembledVector._new(self.row_layout, ts)

    def to_dense(self) -> torch.Tensor:
        """The full matrix ``(*B, N_rows, N_cols)`` in the layouts' flat ordering."""
        batch = self.batch_shape
        rows = []
        for i, rg in enumerate(self.row_layout.groups):
            cols = []
            for j, cg in enumerate(self.col_layout.groups):
                t = self.blocks[i][j]
                sub = block_sub(rg, cg)
                s = math.prod(sub)
                t = t.expand(batch + t.shape[t.ndim - len(sub) - 2 :])
                t = t.reshape((*batch, s, rg.width, cg.width))
                if rg.is_block and cg.is_block:
                    eye = torch.eye(s, dtype=t.dtype, device=t.device).reshape(s, 1, s, 1)
                    t = (t.unsqueeze(-2) * eye).reshape((*batch, s * rg.width, s * cg.width))
                elif rg.is_block:
                    t = t.reshape((*batch, s * rg.width, cg.width))
                elif cg.is_block:
                    t = t.movedim(-3, -2).reshape((*batch, rg.width, s * cg.width))
                else:
                    t = t.reshape((*batch, rg.width, cg.width))
                cols.append(t)
            rows.append(torch.cat(cols, dim=-1))
        return torch.cat(rows, dim=-2)

    def __repr__(self) -> str:
        return f"AssembledMatrix(rows={self.row_layout!r}, cols={self.col_layout!r})"
