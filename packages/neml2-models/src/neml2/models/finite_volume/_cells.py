"""Cell-axis helpers shared by the finite-volume models (private).

The cell axis is the last sub-batch axis of a variable. Tangents are fitted to the batch layout
of their primal and made explicit (``fullify`` + ``materialize``) before an operator mixes
neighbouring cells, so that the result is the full ``(*S_out, *S_in)`` block.
"""

from __future__ import annotations

from typing import Any

from neml2.models.common.batch_reduction import fit_tangent
from neml2.tensors import fullify

__all__ = ["cell_count", "cells", "explicit", "left", "right", "table_cells"]


def cells(x: Any, what: str) -> int:
    """Number of cells of variable ``x`` (its last sub-batch axis); ``what`` names it."""
    if x.sub_batch_ndim < 1:
        raise ValueError(
            f"{what} has no sub-batch (cell) axis: batch shape {tuple(x.batch_shape)}; the "
            f"cells must be the last sub-batch axis of the variable"
        )
    return int(x.sub_batch_shape[-1])


def cell_count(w: Any) -> int:
    """Number of cells of a parameter: its last batch axis (1 for a batch-less value)."""
    return int(w.data.shape[-1]) if w.data.dim() > w.BASE_NDIM else 1


def table_cells(w: Any) -> Any:
    """A parameter with its last batch axis tagged as the cell (sub-batch) axis."""
    if w.sub_batch_ndim >= 1 or w.data.dim() == w.BASE_NDIM:
        return w
    return w.sub_batch.retag(1)


def explicit(t: Any, x: Any) -> Any:
    """Tangent ``t`` of primal ``x`` fitted to its layout, every cell explicit."""
    if t is x:
        return x
    return fullify(fit_tangent(t, x)).materialize()


def left(t: Any) -> Any:
    """Values at the left neighbour of each interior edge (cells ``0 .. N-2``)."""
    return t.sub_batch[..., :-1]


def right(t: Any) -> Any:
    """Values at the right neighbour of each interior edge (cells ``1 .. N-1``)."""
    return t.sub_batch[..., 1:]
