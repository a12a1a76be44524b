r"""``[Data] type = CubicCrystal``: slip systems of a cubic crystal.

Lattice vectors :math:`a\,e_1, a\,e_2, a\,e_3` (``lattice_parameter`` :math:`a`), the 24 proper
rotations of the cubic group (:func:`~neml2.data.crystal_geometry.cubic_symmetry_operators`),
and slip-system families ``slip_directions[i]`` / ``slip_planes[i]`` (``[Tensors]`` names of
MillerIndex values, one index or a batch ``(nfamily, 3)`` each). FCC ``<110>{111}`` and BCC
``<111>{110}`` each give 12 systems.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.data.crystal_geometry import CrystalGeometry, cubic_symmetry_operators
from neml2.schema import HitSchema, buffer
from neml2.tensors import MillerIndex, Scalar

__all__ = ["CubicCrystal"]


def _constant(spec: str, cls: Any, factory: Any, key: str) -> torch.Tensor:
    from neml2.models._params import resolve_constant

    value = resolve_constant(spec, cls, factory, f"option '{key}'")
    if value is None:
        raise ValueError(
            f"option '{key}': '{spec}' is neither a number nor a [Tensors] block of this file"
        )
    data: torch.Tensor = value.data
    return data


@register_neml2_object("CubicCrystal")
class CubicCrystal(CrystalGeometry):
    """Crystal geometry of a cubic lattice with lattice parameter ``a``."""

    SECTION: ClassVar[str] = "Data"
    hit: ClassVar[HitSchema] = HitSchema(
        buffer("lattice_parameter", Scalar, "Lattice parameter a (number or [Tensors] Scalar)"),
        buffer("slip_directions", MillerIndex, "Slip directions <uvw> ([Tensors] MillerIndex)"),
        buffer("slip_planes", MillerIndex, "Slip plane normals {hkl} ([Tensors] MillerIndex)"),
    )

    @classmethod
    def create(
        cls,
        lattice_parameter: float | torch.Tensor,
        slip_directions: torch.Tensor,
        slip_planes: torch.Tensor,
    ) -> CrystalGeometry:
        """The geometry of a cubic crystal (``slip_*``: integer indices ``(3,)`` or ``(n, 3)``)."""
        a = torch.as_tensor(lattice_parameter, dtype=torch.float64).detach().cpu()
        if a.numel() != 1 or not torch.isfinite(a).all() or float(a) <= 0.0:
            raise ValueError(
                f"option 'lattice_parameter': expected one positive number, got {a.tolist()}"
            )
        lattice = float(a) * torch.eye(3, dtype=torch.float64)
        ops = cubic_symmetry_operators().data
        return cls.build(lattice, ops, slip_directions, slip_planes)

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> CrystalGeometry:
        """Build from a ``[Data]`` block (values resolved through ``[Tensors]``)."""
        a = _constant(node.get_str("lattice_parameter"), Scalar, factory, "lattice_parameter")
        d = _constant(node.get_str("slip_directions"), MillerIndex, factory, "slip_directions")
        p = _constant(node.get_str("slip_planes"), MillerIndex, factory, "slip_planes")
        return cls.create(a, d, p)
