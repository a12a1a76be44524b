r"""Slip-system geometry of a crystal: lattice, symmetry expansion and Schmid tensors.

A slip-system *family* is a pair of Miller indices, a direction :math:`[uvw]` and a plane
:math:`(hkl)`. With lattice vectors :math:`a_1, a_2, a_3` (rows of ``lattice``) and the
reciprocal vectors :math:`b_j` (:math:`a_i \cdot b_j = \delta_{ij}`), the Cartesian direction is
:math:`u a_1 + v a_2 + w a_3` and the plane normal :math:`h b_1 + k b_2 + l b_3`. Each family is
expanded by the crystal's proper rotations :math:`Q_g` into the distinct *lines* of directions
and normals (a vector and its negative are one line); every direction lying in a plane
(:math:`d \cdot n = 0`) gives one slip system with unit :math:`\hat d_i, \hat n_i`.

Per system :math:`i` the geometry provides, on one sub-batch axis of length ``nslip``:
:math:`A_i = \hat d_i \otimes \hat n_i` (R2), the Schmid tensor :math:`M_i = \mathrm{sym}(A_i)`
(SR2) and its skew part :math:`W_i = \mathrm{skew}(A_i)` (WR2), all in the crystal frame.

Order and sign of the systems: families in the order given; within a family, the directions
in order of first appearance as the operators are applied in turn (each line keeps the sign of
its first image), and for each direction the planes containing it, found the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from neml2.tensors import R2, SR2, WR2, skew, sym

__all__ = ["CrystalGeometry", "SlipSystemError", "cubic_symmetry_operators"]

#: two unit vectors are one line when ``1 − |d̂·ê|`` is below this
_PARALLEL_TOL = 1e-10
#: a direction lies in a plane when ``|d̂·n̂|`` is below this
_ORTHOGONAL_TOL = 1e-10


class SlipSystemError(ValueError):
    """A slip-system family that cannot be expanded (the message names the option)."""


def _bad(option: str, message: str) -> SlipSystemError:
    return SlipSystemError(f"option '{option}': {message}")


#: The 24 proper rotations of the cubic point group 432 (rows of each matrix), grouped as the
#: identity, the 120/240 degree turns about the <111> diagonals, the 180 degree turns about the
#: cube axes, then per cube axis (y, x, z) the 180 degree turns about the two face diagonals
#: normal to it and the two 90 degree turns about it. This is the order NEML2 v3 expands slip
#: families in, so slip systems are numbered (and signed) as there.
_CUBIC_432: tuple[tuple[tuple[int, int, int], ...], ...] = (
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
    ((0, -1, 0), (0, 0, 1), (-1, 0, 0)),
    ((0, -1, 0), (0, 0, -1), (1, 0, 0)),
    ((0, 1, 0), (0, 0, -1), (-1, 0, 0)),
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    ((0, 0, -1), (-1, 0, 0), (0, 1, 0)),
    ((0, 0, 1), (-1, 0, 0), (0, -1, 0)),
    ((-1, 0, 0), (0, 1, 0), (0, 0, -1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    ((1, 0, 0), (0, -1, 0), (0, 0, -1)),
    ((0, 0, -1), (0, -1, 0), (-1, 0, 0)),
    ((0, 0, 1), (0, -1, 0), (1, 0, 0)),
    ((0, 0, 1), (0, 1, 0), (-1, 0, 0)),
    ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
    ((-1, 0, 0), (0, 0, -1), (0, -1, 0)),
    ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
    ((1, 0, 0), (0, 0, 1), (0, -1, 0)),
    ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
    ((0, -1, 0), (-1, 0, 0), (0, 0, -1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    ((0, 1, 0), (1, 0, 0), (0, 0, -1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
)


def cubic_symmetry_operators(dtype: torch.dtype = torch.float64) -> R2:
    """The 24 proper rotations of the cubic point group ``432`` as a batch ``(24, 3, 3)``
    (identity first; see :data:`_CUBIC_432` for the order)."""
    return R2(torch.tensor(_CUBIC_432, dtype=dtype))


def _as_rows(x: torch.Tensor, what: str) -> torch.Tensor:
    """Miller indices as ``(nfamily, 3)`` float64 rows (a single index becomes one row)."""
    d = x.detach().to(torch.float64, copy=True).cpu()
    if d.dim() == 1:
        d = d.reshape(1, 3)
    if d.dim() != 2 or d.shape[-1] != 3:
        raise _bad(
            what, f"expected Miller indices of shape (3,) or (nfamily, 3), got {tuple(x.shape)}"
        )
    if not torch.isfinite(d).all() or not torch.equal(d, d.round()):
        raise _bad(what, f"Miller indices must be integers, got {d.tolist()}")
    zero = (d == 0).all(dim=-1)
    if zero.any():
        i = int(zero.nonzero()[0, 0])
        raise _bad(what, f"family {i} is the zero index [0 0 0]")
    return d


def _lines(vectors: torch.Tensor) -> torch.Tensor:
    """Distinct lines among unit ``vectors`` ``(m, 3)``: each line's first vector, in order."""
    kept: list[torch.Tensor] = []
    for v in vectors:
        if all(1.0 - abs(float(torch.dot(v, u))) > _PARALLEL_TOL for u in kept):
            kept.append(v)
    return torch.stack(kept)


def _unit(v: torch.Tensor) -> torch.Tensor:
    norm: torch.Tensor = torch.linalg.vector_norm(v, dim=-1, keepdim=True)
    return v / norm


@dataclass(frozen=True)
class CrystalGeometry:
    """Slip systems of a crystal, expanded from Miller-index families (see the module doc).

    ``lattice``: rows are the lattice vectors ``(3, 3)``; ``symmetry_operators``: ``(ng, 3, 3)``
    proper rotations in the crystal's Cartesian frame. All tensors are float64 on the CPU;
    models copy what they use into their own buffers (which follow ``Model.to``).
    """

    lattice: torch.Tensor
    symmetry_operators: torch.Tensor
    slip_directions: torch.Tensor
    slip_planes: torch.Tensor
    directions: torch.Tensor
    normals: torch.Tensor
    family_sizes: tuple[int, ...]

    @classmethod
    def build(
        cls,
        lattice: torch.Tensor,
        symmetry_operators: torch.Tensor,
        slip_directions: torch.Tensor,
        slip_planes: torch.Tensor,
    ) -> CrystalGeometry:
        """Expand the families ``slip_directions[i]`` / ``slip_planes[i]`` into slip systems."""
        L = lattice.detach().to(torch.float64).cpu()
        ops = symmetry_operators.detach().to(torch.float64).cpu()
        dirs = _as_rows(slip_directions, "slip_directions")
        planes = _as_rows(slip_planes, "slip_planes")
        if dirs.shape[0] != planes.shape[0]:
            raise _bad(
                "slip_planes",
                f"{planes.shape[0]} plane families for {dirs.shape[0]} direction families "
                f"(give one plane per direction)",
            )
        reciprocal = torch.linalg.inv(L).mT
        d_all: list[torch.Tensor] = []
        n_all: list[torch.Tensor] = []
        sizes: list[int] = []
        for i, (uvw, hkl) in enumerate(zip(dirs, planes, strict=True)):
            d_lines = _lines(_unit(torch.einsum("gij,j->gi", ops, uvw @ L)))
            n_lines = _lines(_unit(torch.einsum("gij,j->gi", ops, hkl @ reciprocal)))
            count = 0
            for d in d_lines:
                for n in n_lines:
                    if abs(float(torch.dot(d, n))) < _ORTHOGONAL_TOL:
                        d_all.append(d)
                        n_all.append(n)
                        count += 1
            if count == 0:
                raise _bad(
                    "slip_planes",
                    f"family {i}: no direction of <{_fmt(uvw)}> lies in a plane of "
                    f"{{{_fmt(hkl)}}} (a slip direction must be orthogonal to its plane normal)",
                )
            sizes.append(count)
        return cls(
            lattice=L,
            symmetry_operators=ops,
            slip_directions=dirs,
            slip_planes=planes,
            directions=torch.stack(d_all),
            normals=torch.stack(n_all),
            family_sizes=tuple(sizes),
        )

    # ------------------------------------------------------------------ per-system tensors
    @property
    def nslip(self) -> int:
        """Number of slip systems."""
        return int(self.directions.shape[0])

    def A(self) -> R2:
        """``d̂_i ⊗ n̂_i`` (sub-batch ``(nslip,)``)."""
        return R2(torch.einsum("si,sj->sij", self.directions, self.normals), sub_batch_ndim=1)

    def M(self) -> SR2:
        """Schmid tensors ``sym(d̂_i ⊗ n̂_i)`` (sub-batch ``(nslip,)``)."""
        return sym(self.A())

    def W(self) -> WR2:
        """Skew parts ``skew(d̂_i ⊗ n̂_i)`` (sub-batch ``(nslip,)``)."""
        return skew(self.A())


def _fmt(v: torch.Tensor) -> str:
    return " ".join(str(int(x)) for x in v.tolist())
