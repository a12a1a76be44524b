"""Table parameters of the interpolation models: node axes are the trailing batch axes."""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["check_abscissa", "nodes", "table"]


def table(w: Any, n: int) -> Any:
    """``w`` with (at least) its last ``n`` batch axes marked as sub-batch (the table nodes)."""
    return w if w.sub_batch_ndim >= n else w.sub_batch.retag(n)


def nodes(w: Any, option: str, n: int = 1) -> tuple[int, ...]:
    """Node counts of table parameter ``w`` (its last ``n`` batch axes); raises if missing."""
    batch = tuple(w.batch_shape)
    if len(batch) < n or any(s < 2 for s in batch[len(batch) - n :]):
        want = "one table axis" if n == 1 else f"{n} table axes"
        raise ValueError(
            f"option '{option}': expected {want} of at least 2 nodes as the trailing batch "
            f"axis(es), got batch shape {batch}"
        )
    return batch[len(batch) - n :]


def check_abscissa(w: Any, option: str) -> int:
    """Validate an abscissa table (>= 2 strictly increasing nodes); returns the node count."""
    (n,) = nodes(w, option)
    if not bool(torch.all(torch.diff(w.data.detach(), dim=-1) > 0)):
        raise ValueError(f"option '{option}': abscissa values must be strictly increasing")
    return n
