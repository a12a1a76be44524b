"""``[Data] type = SingleSlipTestCrystal``: a crystal with one slip system, for verification.

The system [1 -1 0](1 1 1) with no symmetry expansion (identity only). Registered once per
process: this module is imported by name (``_support`` is on ``sys.path``), so every test
module that needs it shares the one class.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.data import CrystalGeometry


@register_neml2_object("SingleSlipTestCrystal")
class SingleSlipTestCrystal(CrystalGeometry):
    """A crystal with the single system [1 -1 0](1 1 1) (no symmetry expansion)."""

    SECTION: ClassVar[str] = "Data"

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> CrystalGeometry:
        """The geometry (the block takes no options)."""
        eye = torch.eye(3, dtype=torch.float64)
        return cls.build(eye, eye[None], torch.tensor([1, -1, 0]), torch.tensor([1, 1, 1]))
