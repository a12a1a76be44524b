"""``[Data]`` objects: crystal geometry (slip systems) used by the crystal-plasticity models."""

from __future__ import annotations

from neml2.data.crystal_geometry import (
    CrystalGeometry as CrystalGeometry,
)
from neml2.data.crystal_geometry import (
    SlipSystemError as SlipSystemError,
)
from neml2.data.crystal_geometry import (
    cubic_symmetry_operators as cubic_symmetry_operators,
)
from neml2.data.cubic_crystal import CubicCrystal as CubicCrystal

__all__ = ["CrystalGeometry", "CubicCrystal", "SlipSystemError", "cubic_symmetry_operators"]
