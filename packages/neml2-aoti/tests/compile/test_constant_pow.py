"""A ``pow`` of constants alone (a baked 0-d parameter) is lowered with tensor constants kept
(Inductor cannot lower ``pow`` of an inlined 0-d literal); other graphs keep the defaults."""

from __future__ import annotations

import torch
from torch import nn

from neml2.aoti.compile._lower import KEEP_TENSOR_CONSTANTS, constant_configs


class _Power(nn.Module):
    """``x * g^3`` (constant base) or ``(x g)^3`` (input-dependent base)."""

    def __init__(self, constant_base: bool) -> None:
        super().__init__()
        self.g = nn.Buffer(torch.tensor(0.2, dtype=torch.float64))
        self.constant_base = constant_base

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = self.g
        return x * g**3 if self.constant_base else (x * g) ** 3


def _exported(constant_base: bool) -> torch.export.ExportedProgram:
    x = torch.ones(4, dtype=torch.float64)
    return torch.export.export(_Power(constant_base), (x,))


def test_constant_base_keeps_tensor_constants() -> None:
    assert constant_configs(_exported(True)) == KEEP_TENSOR_CONSTANTS


def test_input_dependent_base_keeps_defaults() -> None:
    assert constant_configs(_exported(False)) == {}
