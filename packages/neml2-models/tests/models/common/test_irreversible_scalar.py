"""IrreversibleScalar: y = x if x > y~1 else y~1."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

HIT = """
[Models]
  [model]
    type = IrreversibleScalar
    from = 'd'
    to = 'dmax'
  []
[]
"""
# both branches, well separated (finite differences need |x - y~1| >> eps)
CASES = [
    ModelCase(
        "ratchet",
        HIT,
        {"d": np.array([0.3, -1.0, 2.0, 0.5]), "dmax~1": np.array([0.1, 0.4, 2.5, -0.2])},
        lambda x: {"dmax": np.maximum(x["d"], x["dmax~1"])},
    )
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_irreversible_scalar(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_io_names() -> None:
    from neml2.factory import load_string

    m = load_string(HIT).get_model("model")
    assert list(m.input_spec) == ["d", "dmax~1"]
    assert list(m.output_spec) == ["dmax"]
