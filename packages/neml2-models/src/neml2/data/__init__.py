"""``[Data]`` objects: crystal geometry (slip systems) used by the crystal-plasticity models."""

from __future__ import annotations

from neml2.data.crystal_geometry import (
    CrystalGeometry as CrystalGeometry,
    SlipSystemError as SlipSystemError,
    cubic_symmetry_operators as cubic_symmetry_operators,
)
from neml2.data.cubic_crystal import CubicCrystal as CubicCrystal

__all__ = ["CrystalGeometry", "CubicCrystal", "SlipSystemError", "cubic_symmetry_operators"]
