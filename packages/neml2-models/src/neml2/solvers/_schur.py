"""``SchurComplement``: two-group direct solve by eliminating the primary group.

With ``p`` the primary and ``s`` the secondary group (rows ``residual_primary_group``,
columns ``unknown_primary_group``) and right-hand side ``b``::

    Y = App⁻¹ Aps,   z = App⁻¹ bp,   S = Ass − Asp Y,   d = bs − Asp z,
    xs = S⁻¹ d,      xp = z − Y xs.

``App`` is solved by ``primary_solver`` and ``S`` by ``schur_solver``. A matrix
right-hand side is handled per column group (same formulas with ``z``, ``d`` and
``x`` blocks per column group).
"""

from __future__ import annotations

import torch

from neml2._registry import register_neml2_object
from neml2.es import (
    AssembledMatrix,
    AssembledVector,
    AxisGroup,
    AxisLayout,
    VariableInfo,
    block_product,
)
from neml2.schema import HitSchema, dependency, option
from neml2.solvers._protocol import DirectSolver, LinearOperator

_RHS_LAYOUT = AxisLayout([AxisGroup((VariableInfo("_rhs", (1,)),), "dense")])


def _nsub(*groups: AxisGroup) -> int:
    return next((len(g.sub_batch_shape) for g in groups if g.is_block), 0)


def _prod(
    a: torch.Tensor, b: torch.Tensor, r: AxisGroup, m: AxisGroup, c: AxisGroup
) -> torch.Tensor:
    return block_product(a, b, r.is_block, m.is_block, c.is_block, _nsub(r, m, c))


@register_neml2_object("SchurComplement")
class SchurComplement(DirectSolver):
    """Two-group direct solve through the Schur complement of the primary block."""

    hit = HitSchema(
        option(
            "residual_primary_group", int, "Index (0 or 1) of the primary residual group", default=0
        ),
        option(
            "unknown_primary_group", int, "Index (0 or 1) of the primary unknown group", default=0
        ),
        dependency("primary_solver", "get_solver", "Direct solver for the primary diagonal block"),
        dependency("schur_solver", "get_solver", "Direct solver for the Schur complement"),
    )

    def __init__(
        self,
        primary_solver: DirectSolver,
        schur_solver: DirectSolver,
        residual_primary_group: int = 0,
        unknown_primary_group: int = 0,
    ) -> None:
        for key, val in (
            ("residual_primary_group", residual_primary_group),
            ("unknown_primary_group", unknown_primary_group),
        ):
            if val not in (0, 1):
                raise ValueError(f"SchurComplement: {key} must be 0 or 1, got {val!r}")
        for key, solver in (("primary_solver", primary_solver), ("schur_solver", schur_solver)):
            if not isinstance(solver, DirectSolver):
                raise TypeError(
                    f"SchurComplement: {key} must be a direct solver (e.g. DenseLU), "
                    f"got {type(solver).__name__}"
                )
        self.primary_solver = primary_solver
        self.schur_solver = schur_solver
        self.residual_primary_group = residual_primary_group
        self.unknown_primary_group = unknown_primary_group

    def solve(self, A: LinearOperator, b: AssembledVector) -> AssembledVector:
        """``x = A⁻¹ b`` (``b`` as a one-column right-hand side)."""
        M = A.matrix()
        rhs = AssembledMatrix(
            M.row_layout, _RHS_LAYOUT, [[t.unsqueeze(-1)] for t in b.tensors], check=False
        )
        X = self.solve_matrix(M, rhs)
        return AssembledVector._new(M.col_layout, tuple(r[0].squeeze(-1) for r in X.blocks))

    def solve_matrix(
        self, A: AssembledMatrix, B: AssembledMatrix, overwrite_b: bool = False
    ) -> AssembledMatrix:
        """``X = A⁻¹ B`` by block elimination (``overwrite_b`` is not used: the eliminated
        right-hand sides are new tensors either way)."""
        rows, cols = A.row_layout, A.col_layout
        if len(rows.groups) != 2 or len(cols.groups) != 2:
            raise ValueError(
                f"SchurComplement: needs exactly 2 residual groups and 2 unknown groups, got "
                f"{len(rows.groups)} and {len(cols.groups)}"
            )
        if B.row_layout != rows:
            raise ValueError(
                f"SchurComplement: right-hand side rows {B.row_layout!r} do not match the "
                f"residual layout {rows!r}"
            )
        rp, up = self.residual_primary_group, self.unknown_primary_group
        rs, us = 1 - rp, 1 - up
        Rp, Rs, Up, Us = rows.groups[rp], rows.groups[rs], cols.groups[up], cols.groups[us]
        if Rp.width != Up.width or Rp.structure != Up.structure:
            raise ValueError(
                f"SchurComplement: primary block is not square: residuals {list(Rp.names)} "
                f"({Rp.structure}, width {Rp.width}) vs unknowns {list(Up.names)} "
                f"({Up.structure}, width {Up.width})"
            )
        bcols = B.col_layout.groups
        triples = [(Rs, Up, Us)] + [t for c in bcols for t in ((Rs, Up, c), (Up, Us, c))]
        for r, m, c in triples:
            if r.is_block and c.is_block and not m.is_block:
                raise ValueError(
                    f"SchurComplement: eliminating through the dense group {list(m.names)} "
                    f"couples all sites of {list(r.names)} and {list(c.names)}; the result "
                    "is not block diagonal (make the block group primary, or use dense groups)"
                )
        bcols = B.col_layout.groups
        # Primary solve with right-hand sides [Aps | Bp].
        p_cols = AxisLayout([Us, *bcols])
        p_rhs = AssembledMatrix(
            AxisLayout([Rp]), p_cols, [[A.blocks[rp][us], *B.blocks[rp]]], check=False
        )
        App = AssembledMatrix(AxisLayout([Rp]), AxisLayout([Up]), [[A.blocks[rp][up]]])
        P = self.primary_solver.solve_matrix(App, p_rhs).blocks[0]
        Y, Z = P[0], P[1:]
        Asp = A.blocks[rs][up]
        S = A.blocks[rs][us] - _prod(Asp, Y, Rs, Up, Us)
        D = [
            B.blocks[rs][k] - _prod(Asp, z, Rs, Up, c)
            for k, (z, c) in enumerate(zip(Z, bcols, strict=True))
        ]
        S_m = AssembledMatrix(AxisLayout([Rs]), AxisLayout([Us]), [[S]])
        Xs = self.schur_solver.solve_matrix(
            S_m, AssembledMatrix(AxisLayout([Rs]), B.col_layout, [D], check=False)
        ).blocks[0]
        Xp = [z - _prod(Y, xs, Up, Us, c) for z, xs, c in zip(Z, Xs, bcols, strict=True)]
        out = [Xp, list(Xs)] if up == 0 else [list(Xs), Xp]
        return AssembledMatrix(cols, B.col_layout, out, check=False)
