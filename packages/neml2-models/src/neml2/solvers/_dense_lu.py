"""``DenseLU``: direct solve of a single-group system with batched LU.

A dense group solves ``(*B, n, n)`` systems, a block group ``(*B, *sub, n, n)``
(leading sub-batch axes = independent per-site LUs). ``n = 1`` is a division.
Singular systems are not raised here: their solutions come out non-finite and
Newton reports divergence.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from neml2._registry import register_neml2_object
from neml2.es import AssembledMatrix, AssembledVector, AxisGroup, broadcast_batch
from neml2.solvers._lu_cache import LUCache
from neml2.solvers._native import dense_solve, native_usable, parts_solve
from neml2.solvers._protocol import DirectSolver, LinearOperator


def _single_group(A: AssembledMatrix, who: str) -> tuple[AxisGroup, AxisGroup]:
    if len(A.row_layout.groups) != 1 or len(A.col_layout.groups) != 1:
        raise ValueError(
            f"{who}: needs a single residual group and a single unknown group, got "
            f"{len(A.row_layout.groups)} x {len(A.col_layout.groups)} (use SchurComplement)"
        )
    rg, cg = A.row_layout.groups[0], A.col_layout.groups[0]
    if rg.width != cg.width or rg.structure != cg.structure:
        raise ValueError(
            f"{who}: the system is not square per site: residuals {rg.structure} "
            f"{list(rg.names)} (width {rg.width}) vs unknowns {cg.structure} "
            f"{list(cg.names)} (width {cg.width})"
        )
    return rg, cg


def _solve(a: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """``a⁻¹ rhs`` for ``a (..., n, n)``, ``rhs (..., n, k)`` (batches broadcast)."""
    if a.shape[-1] == 1:
        return rhs / a
    return dense_solve(a, rhs)


def _pad(t: torch.Tensor, rg: AxisGroup, cg: AxisGroup, rhs: bool = False) -> torch.Tensor:
    """Align a dense-row system with a block-column right-hand side ``(*B, *sub, n, k)``.

    The matrix gets unit sub-batch axes (``rhs=False``); or the right-hand side's sub-batch
    axes are moved into its columns (``rhs=True``) so the cached factors apply unchanged.
    """
    if rg.is_block or not cg.is_block:
        return t
    nsub = len(cg.sub_batch_shape)
    if rhs:
        moved = t.movedim(tuple(range(-2 - nsub, -2)), tuple(range(-nsub, 0)))
        return moved.reshape((*moved.shape[: moved.ndim - nsub - 2], t.shape[-2], -1))
    return t.reshape(t.shape[:-2] + (1,) * nsub + t.shape[-2:])


def _unpad(x: torch.Tensor, rg: AxisGroup, cg: AxisGroup) -> torch.Tensor:
    """Inverse of ``_pad(rhs=True)``: columns back to ``(*B, *sub, n, k)``."""
    if rg.is_block or not cg.is_block:
        return x
    sub = cg.sub_batch_shape
    nsub = len(sub)
    x = x.reshape((*x.shape[:-1], cg.width, *sub))
    return x.movedim(tuple(range(-nsub, 0)), tuple(range(-2 - nsub, -2)))


@register_neml2_object("DenseLU")
class DenseLU(DirectSolver):
    """Direct solve with batched dense LU (one group; per-site LUs for block groups).

    Small CPU systems use neml2-aoti's native kernel when it is installed (see
    :mod:`neml2.solvers._native`; matrix right-hand sides are then solved as one block).
    Otherwise matrix right-hand sides go through an :class:`LUCache`, so repeated
    sensitivity solves against the same ``A`` factor it once.
    """

    def __init__(self) -> None:
        self.lu_cache = LUCache()

    def solve(self, A: LinearOperator, b: AssembledVector) -> AssembledVector:
        """``x = A⁻¹ b``."""
        M = A.matrix()
        rg, _ = _single_group(M, "DenseLU")
        rhs = b.tensors[0].unsqueeze(-1)
        x = None if M.parts is None else parts_solve(M.parts, rg.width, rhs)
        if x is None:
            x = _solve(M.blocks[0][0], rhs)
        return AssembledVector._new(M.col_layout, (x.squeeze(-1),))

    def solve_matrix(
        self, A: AssembledMatrix, B: AssembledMatrix, overwrite_b: bool = False
    ) -> AssembledMatrix:
        """``X = A⁻¹ B`` column group by column group (with ``overwrite_b``, the native kernel
        solves in ``B``'s memory where it can)."""
        rg, _ = _single_group(A, "DenseLU")
        parts = A.parts
        if parts is not None:  # in place from the nonzero blocks: A is never assembled
            batch = broadcast_batch(*(p.value.shape[:-2] for p in parts))
            X = self._solve_matrix_native(
                A, B, rg, batch, lambda rhs, ow: parts_solve(parts, rg.width, rhs, ow), overwrite_b
            )
            if X is not None:
                return X
        a = A.blocks[0][0]
        if a.shape[-1] > 1 and native_usable(a, B.blocks[0][0]):
            X = self._solve_matrix_native(
                A, B, rg, a.shape[:-2], lambda rhs, ow: dense_solve(a, rhs, ow), overwrite_b
            )
            assert X is not None
            return X
        out = []
        for cg, blk in zip(B.col_layout.groups, B.blocks[0], strict=True):
            if a.shape[-1] == 1:
                out.append(_solve(_pad(a, rg, cg), blk))
                continue
            x = self.lu_cache.solve(a, _pad(blk, rg, cg, rhs=True))
            out.append(_unpad(x, rg, cg))
        return AssembledMatrix(A.col_layout, B.col_layout, [out], check=False)

    @staticmethod
    def _solve_matrix_native(
        A: AssembledMatrix,
        B: AssembledMatrix,
        rg: AxisGroup,
        a_batch: tuple[int, ...],
        solve: Callable[[torch.Tensor, bool], torch.Tensor | None],
        overwrite_b: bool,
    ) -> AssembledMatrix | None:
        """All column groups as one right-hand side of one native factor-and-solve of the
        matrices of batch ``a_batch`` (``solve(rhs, overwrite)`` returns None when its kernel does
        not apply). Several groups are concatenated into a new tensor, which is always solved
        in place; a single group's block only with ``overwrite_b``."""
        groups = B.col_layout.groups
        rhs = [_pad(blk, rg, cg, rhs=True) for cg, blk in zip(groups, B.blocks[0], strict=True)]
        batch = broadcast_batch(a_batch, *(r.shape[:-2] for r in rhs))
        full = [r.expand(batch + r.shape[-2:]) for r in rhs]
        whole, ours = (full[0], overwrite_b) if len(full) == 1 else (torch.cat(full, -1), True)
        x = solve(whole, ours)
        if x is None:
            return None
        out, start = [], 0
        for r, cg in zip(rhs, groups, strict=True):
            out.append(_unpad(x[..., start : start + r.shape[-1]], rg, cg))
            start += r.shape[-1]
        return AssembledMatrix(A.col_layout, B.col_layout, [out], check=False)
