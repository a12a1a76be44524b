"""<T>InputParameter: parameter = variable, for every tensor type."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(11)
BASES = {
    "Scalar": (), "Vec": (3,), "MRP": (3,), "WR2": (3,), "R2": (3, 3), "SR2": (6,),
    "SSR4": (6, 6), "MillerIndex": (3,),
}  # fmt: skip


def _case(t: str) -> ModelCase:
    hit = (
        f"[Models]\n  [model]\n    type = {t}InputParameter\n    variable = 'x'\n"
        f"    parameter = 'p'\n  []\n[]\n"
    )
    return ModelCase(t, hit, {"x": RNG.normal(size=(2, *BASES[t]))}, lambda x: {"p": x["x"]})


CASES = [_case(t) for t in BASES]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_input_parameter(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_default_names() -> None:
    from neml2.factory import load_string

    m = load_string("[Models]\n  [m]\n    type = VecInputParameter\n  []\n[]\n").get_model("m")
    assert list(m.input_spec) == ["variable"]
    assert list(m.output_spec) == ["parameter"]
