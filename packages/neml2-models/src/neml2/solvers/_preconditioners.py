"""Preconditioners for the Krylov solvers, applied to flat ``(*B, N)`` vectors.

* ``NoPreconditioner``: ``M⁻¹ = I``;
* ``JacobiPreconditioner``: ``M = diag(A)``;
* ``BlockJacobiPreconditioner``: ``M`` = the per-variable diagonal blocks of ``A``
  (per site for block groups), each LU-factored;
* ``FullPreconditioner``: ``M = A`` (one LU of the assembled matrix).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import torch

from neml2._registry import register_neml2_object
from neml2.es import AssembledMatrix, AssembledVector, AxisLayout, broadcast_batch
from neml2.solvers._hit import HitObject


def _square(A: AssembledMatrix, who: str) -> AxisLayout:
    if A.row_layout.flat_size != A.col_layout.flat_size:
        raise ValueError(
            f"{who}: the system is not square ({A.row_layout.flat_size} residuals, "
            f"{A.col_layout.flat_size} unknowns)"
        )
    return A.col_layout


class Preconditioner(HitObject, ABC):
    """Right preconditioner ``M⁻¹`` built from an assembled matrix."""

    needs_matrix: bool = True

    @abstractmethod
    def setup(self, A: AssembledMatrix) -> None:
        """(Re)build from ``A``."""

    @abstractmethod
    def apply(self, r: torch.Tensor) -> torch.Tensor:
        """``M⁻¹ r`` for flat ``r`` ``(*B, N)``."""


@register_neml2_object("NoPreconditioner")
class NoPreconditioner(Preconditioner):
    """Identity preconditioner."""

    needs_matrix = False

    def setup(self, A: AssembledMatrix) -> None:
        """Nothing to build."""

    def apply(self, r: torch.Tensor) -> torch.Tensor:
        """``r``."""
        return r


@register_neml2_object("JacobiPreconditioner")
class JacobiPreconditioner(Preconditioner):
    """Inverse of the main diagonal."""

    def __init__(self) -> None:
        self._inv_diag: torch.Tensor | None = None

    def setup(self, A: AssembledMatrix) -> None:
        """Store ``1/diag(A)``."""
        if A.row_layout != A.col_layout:
            _square(A, "JacobiPreconditioner")
            d = torch.diagonal(A.to_dense(), dim1=-2, dim2=-1)
        else:
            d = A.diagonal().flat()
        self._inv_diag = 1.0 / d

    def apply(self, r: torch.Tensor) -> torch.Tensor:
        """``r / diag(A)``."""
        if self._inv_diag is None:
            raise RuntimeError("JacobiPreconditioner: apply() called before setup()")
        return r * self._inv_diag


@register_neml2_object("BlockJacobiPreconditioner")
class BlockJacobiPreconditioner(Preconditioner):
    """LU of each variable's diagonal block (per site in block groups)."""

    def __init__(self) -> None:
        self._layout: AxisLayout | None = None
        self._lus: list[list[tuple[torch.Tensor, torch.Tensor]]] = []

    def setup(self, A: AssembledMatrix) -> None:
        """Factor every per-variable diagonal block."""

        def shape(layout: AxisLayout) -> list[tuple[str, int, tuple[int, ...]]]:
            return [(g.structure, g.width, g.sub_batch_shape) for g in layout.groups]

        if shape(A.row_layout) != shape(A.col_layout):
            raise ValueError(
                "BlockJacobiPreconditioner: residual and unknown groups must match in "
                "structure and width"
            )
        self._layout = A.col_layout
        self._lus = []
        for gi, g in enumerate(A.col_layout.groups):
            blk = A.blocks[gi][gi]
            lus = []
            for k in range(len(g.variables)):
                lo, hi = g.offsets[k], g.offsets[k + 1]
                LU, piv, _ = torch.linalg.lu_factor_ex(blk[..., lo:hi, lo:hi])
                lus.append((LU, piv))
            self._lus.append(lus)

    def apply(self, r: torch.Tensor) -> torch.Tensor:
        """Solve each diagonal block against its slice of ``r``."""
        if self._layout is None:
            raise RuntimeError("BlockJacobiPreconditioner: apply() called before setup()")
        v = AssembledVector.from_flat(self._layout, r)
        out = []
        for g, t, lus in zip(self._layout.groups, v.tensors, self._lus, strict=True):
            parts = []
            for k, (LU, piv) in enumerate(lus):
                rhs = t[..., g.offsets[k] : g.offsets[k + 1]].unsqueeze(-1)
                parts.append(_lu_solve(LU, piv, rhs).squeeze(-1))
            out.append(torch.cat(parts, dim=-1))
        return AssembledVector._new(self._layout, tuple(out)).flat()


@register_neml2_object("FullPreconditioner")
class FullPreconditioner(Preconditioner):
    """LU of the whole assembled matrix (an exact inverse)."""

    def __init__(self) -> None:
        self._lu: tuple[torch.Tensor, torch.Tensor] | None = None

    def setup(self, A: AssembledMatrix) -> None:
        """Factor ``A``."""
        _square(A, "FullPreconditioner")
        LU, piv, _ = torch.linalg.lu_factor_ex(A.to_dense())
        self._lu = (LU, piv)

    def apply(self, r: torch.Tensor) -> torch.Tensor:
        """``A⁻¹ r``."""
        if self._lu is None:
            raise RuntimeError("FullPreconditioner: apply() called before setup()")
        return _lu_solve(*self._lu, r.unsqueeze(-1)).squeeze(-1)


def _lu_solve(LU: torch.Tensor, piv: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """``lu_solve`` with the factorization and right-hand side batches broadcast."""
    batch = broadcast_batch(LU.shape[:-2], rhs.shape[:-2])
    LU = LU.expand(batch + LU.shape[-2:])
    piv = piv.expand(batch + piv.shape[-1:])
    x: torch.Tensor = torch.linalg.lu_solve(LU, piv, rhs.expand(batch + rhs.shape[-2:]))
    return x
