"""ScalarToDiagonalSR2: Y = s I (Mandel [s, s, s, 0, 0, 0])."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

HIT = """
[Models]
  [model]
    type = ScalarToDiagonalSR2
    input = 's'
    output = 'Y'
  []
[]
"""
CASES = [
    ModelCase(
        "diagonal",
        HIT,
        {"s": np.array([1.5, -0.25, 3.0])},
        lambda x: {"Y": x["s"][:, None] * np.array([1.0, 1, 1, 0, 0, 0])},
    )
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scalar_to_diagonal_sr2(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)
