"""pyzag block types over a neml2 state layout (dense backend, one batch axis).

A chunk of ``m`` steps is stored as ``(m, nbatch, n)`` vectors and ``(m, nbatch, n, n)`` block
rows. The Jacobian of the step residual :math:`R_k = r(x_k, x_{k-1})` is block lower
bidiagonal: :math:`A_k = \\partial R_k/\\partial x_k` (``J_diag``) and
:math:`B_k = \\partial R_k/\\partial x_{k-1}` (``J_sub``). Newton's chunk solve uses the
Thomas recursion with the LU factors of every :math:`A_k` computed once and cached
(:class:`CachingLU`).
"""

from __future__ import annotations

from typing import Any

import torch
from pyzag.chunktime import BidiagonalForwardOperator  # type: ignore[import-untyped, unused-ignore]
from pyzag.ode import ODEWrapper  # type: ignore[import-untyped, unused-ignore]
from pyzag.operators.base import BlockVector  # type: ignore[import-untyped, unused-ignore]
from pyzag.operators.dense import DenseBlockJacobian, DenseBlockOperator, DenseBlockVector  # type: ignore[import-untyped, unused-ignore]

from neml2.es import AxisLayout

__all__ = [
    "CachingLU",
    "NEML2BlockJacobian",
    "NEML2BlockVector",
    "NEML2SolvableBlockOperator",
    "NEML2Wrapper",
]


class CachingLU:
    """LU factors of a stack of square blocks ``(..., n, n)``, computed on first use."""

    def __init__(self, A: torch.Tensor) -> None:
        self.A = A
        self._lu: tuple[torch.Tensor, torch.Tensor] | None = None

    def factors(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``(LU, pivots)`` of ``A`` (cached)."""
        if self._lu is None:
            lu, piv = torch.linalg.lu_factor(self.A)
            self._lu = (lu, piv)
        return self._lu


class NEML2BlockVector(DenseBlockVector):  # type: ignore[misc, unused-ignore]
    """Chunk vector ``(nblk, nbatch, n)`` whose last axis follows ``layout``."""

    def __init__(self, data: torch.Tensor, layout: AxisLayout | None = None) -> None:
        super().__init__(data)
        self.layout = layout


class NEML2SolvableBlockOperator(DenseBlockOperator):  # type: ignore[misc, unused-ignore]
    """Diagonal blocks ``(nblk, nbatch, n, n)``, LU-factored once at construction.

    Slices (``A[i:i+1]``, used by the Thomas recursion) share the cached factors.
    """

    def __init__(self, data: torch.Tensor) -> None:
        lu, piv = CachingLU(data).factors()
        super().__init__(data, lu, piv)


class NEML2BlockJacobian(DenseBlockJacobian):  # type: ignore[misc, unused-ignore]
    """Per-chunk bidiagonal Jacobian: ``J_diag`` = dR/du, ``J_sub`` = dR/du_old."""

    def __init__(
        self,
        diag: torch.Tensor,
        sub: torch.Tensor,
        layout: AxisLayout | None = None,
        _reversed: bool = False,
    ) -> None:
        super().__init__(diag=diag, sub=sub, _reversed=_reversed)
        self.layout = layout

    def forward_system(self, inverse_operator: Any) -> BidiagonalForwardOperator:
        """Forward bidiagonal system (diagonal blocks with cached LU) for the chunk Newton."""
        if self._reversed:
            raise RuntimeError("forward_system() needs the forward-walk Jacobian")
        return BidiagonalForwardOperator(
            NEML2SolvableBlockOperator(self.diag),
            DenseBlockOperator(self.sub[1:]),
            inverse_operator=inverse_operator,
        )

    def as_adjoint_walk(self) -> NEML2BlockJacobian:
        return NEML2BlockJacobian(self.diag, self.sub, self.layout, not self._reversed)


class NEML2Wrapper(ODEWrapper):  # type: ignore[misc, unused-ignore]
    """Raw ``(…, n)`` tensors ⇄ :class:`NEML2BlockVector` / :class:`NEML2BlockJacobian`."""

    def __init__(self, slayout: AxisLayout) -> None:
        self.slayout = slayout

    def wrap_vector(self, raw: torch.Tensor) -> BlockVector:
        if raw.shape[-1] != self.slayout.flat_size:
            raise ValueError(
                f"NEML2Wrapper: state vectors need {self.slayout.flat_size} entries on the last "
                f"axis (layout {list(self.slayout.names)}), got shape {tuple(raw.shape)}"
            )
        return NEML2BlockVector(raw, self.slayout)

    def unwrap_vector(self, bv: BlockVector) -> torch.Tensor:
        if not isinstance(bv, DenseBlockVector):
            raise TypeError(f"NEML2Wrapper: expected a dense block vector, got {type(bv).__name__}")
        data: torch.Tensor = bv.data
        return data

    def wrap_jacobian(self, diag: torch.Tensor, sub: torch.Tensor) -> NEML2BlockJacobian:
        return NEML2BlockJacobian(diag, sub, self.slayout)
