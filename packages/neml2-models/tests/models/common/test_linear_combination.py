"""<T>LinearCombination: y = sum_i w_i x_i + offset."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(1)


def _hit(t: str, opts: str) -> str:
    return f"""
[Models]
  [model]
    type = {t}LinearCombination
    {opts}
  []
[]
"""


CASES = [
    ModelCase(
        "Scalar-weights",
        _hit("Scalar", "from = 'a b'\n    to = 'c'\n    weights = '2 -3'\n    offset = 0.5"),
        {"a": RNG.normal(size=4), "b": RNG.normal(size=4)},
        lambda x: {"c": 2 * x["a"] - 3 * x["b"] + 0.5},
    ),
    ModelCase(
        "SR2-one-weight",
        _hit("SR2", "from = 'a b'\n    to = 'c'\n    weights = 1.5"),
        {"a": RNG.normal(size=(2, 6)), "b": RNG.normal(size=(2, 6))},
        lambda x: {"c": 1.5 * (x["a"] + x["b"])},
    ),
    ModelCase(
        "Scalar-promoted-weight-offset",
        _hit("Scalar", "from = 'a b'\n    to = 'c'\n    weights = 'w 2'\n    offset = 'k'"),
        {
            "a": RNG.normal(size=3),
            "b": RNG.normal(size=3),
            "w": RNG.normal(size=3),
            "k": RNG.normal(size=3),
        },
        lambda x: {"c": x["w"] * x["a"] + 2 * x["b"] + x["k"]},
    ),
    ModelCase(
        "SR2-promoted-shared-weight",
        _hit("SR2", "from = 'a b'\n    to = 'c'\n    weights = 'w'\n    offset = 'k'"),
        {
            "a": RNG.normal(size=(2, 6)),
            "b": RNG.normal(size=(2, 6)),
            "w": RNG.normal(size=2),
            "k": RNG.normal(size=2),
        },
        lambda x: {"c": x["w"][:, None] * (x["a"] + x["b"]) + x["k"][:, None]},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_linear_combination(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_weight_count_mismatch() -> None:
    from neml2.factory import load_string

    f = load_string(_hit("Scalar", "from = 'a b c'\n    to = 'd'\n    weights = '1 2'"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'weights'.*expected 1 or 3"):
        f.get_model("model")
