"""``LUCache``: batched LU factors of one matrix, reused across right-hand sides.

The cache key is the matrix tensor itself (object identity and in-place version
counter), so a new or modified matrix is refactored and the same one never is.
"""

from __future__ import annotations

import torch

from neml2.es import broadcast_batch


class LUCache:
    """LU factors of the last matrix factored; ``solve`` reuses them for the same tensor."""

    __slots__ = ("_key", "_lu", "factorizations")

    def __init__(self) -> None:
        self._key: tuple[torch.Tensor, int] | None = None
        self._lu: tuple[torch.Tensor, torch.Tensor] | None = None
        self.factorizations = 0

    def factor(self, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(LU, pivots)`` of ``a (..., n, n)``, computed only if ``a`` changed."""
        if self._key is not None and self._key[0] is a and self._key[1] == a._version:
            assert self._lu is not None
            return self._lu
        LU, piv, _ = torch.linalg.lu_factor_ex(a)
        self._key = (a, a._version)
        self._lu = (LU, piv)
        self.factorizations += 1
        return self._lu

    def solve(self, a: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
        """``a⁻¹ rhs`` for ``rhs (..., n, k)``; batches of ``a`` and ``rhs`` broadcast."""
        LU, piv = self.factor(a)
        batch = broadcast_batch(LU.shape[:-2], rhs.shape[:-2])
        x: torch.Tensor = torch.linalg.lu_solve(
            LU.expand(batch + LU.shape[-2:]),
            piv.expand(batch + piv.shape[-1:]),
            rhs.expand(batch + rhs.shape[-2:]),
        )
        return x

    def clear(self) -> None:
        """Forget the cached factors."""
        self._key = None
        self._lu = None
