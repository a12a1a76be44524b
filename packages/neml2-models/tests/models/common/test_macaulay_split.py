"""MacaulaySplit: positive part <x> and negative part x - <x>."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

HIT = """
[Models]
  [model]
    type = MacaulaySplit
    from = 'x'
    to_positive = 'xp'
    to_negative = 'xn'
  []
[]
"""
CASES = [
    ModelCase(
        "split",
        HIT,
        {"x": np.array([[-1.5, 0.25], [2.0, -0.3], [0.7, -4.0]])},
        lambda x: {"xp": np.maximum(x["x"], 0.0), "xn": np.minimum(x["x"], 0.0)},
    )
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_macaulay_split(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_zero_uses_half_heaviside() -> None:
    from neml2.factory import load_string

    m = load_string(HIT).get_model("model")
    _, J = m.jacobian({"x": torch.zeros(2, dtype=torch.float64)})
    assert torch.equal(J["xp"]["x"].data, torch.full((2,), 0.5, dtype=torch.float64))
    assert torch.equal(J["xn"]["x"].data, torch.full((2,), 0.5, dtype=torch.float64))
