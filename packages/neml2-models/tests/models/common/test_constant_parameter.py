"""<T>ConstantParameter: output = parameter value (or a promoted input)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(2)
BASES = {
    "Scalar": (),
    "Vec": (3,),
    "MRP": (3,),
    "WR2": (3,),
    "R2": (3, 3),
    "SR2": (6,),
    "SSR4": (6, 6),
    "MillerIndex": (3,),
}


def _literal(t: str) -> tuple[str, np.ndarray]:
    vals = RNG.normal(size=BASES[t]) if BASES[t] else np.array(RNG.normal())
    return " ".join(f"{x:.17g}" for x in vals.ravel()), vals


def _case(t: str) -> ModelCase:
    text, vals = _literal(t)
    hit = f"[Models]\n  [p]\n    type = {t}ConstantParameter\n    value = '{text}'\n  []\n[]\n"

    def expected(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"p": vals}

    return ModelCase(t, hit, {}, expected, model="p")


def _promoted(t: str) -> ModelCase:
    hit = f"[Models]\n  [p]\n    type = {t}ConstantParameter\n    value = 'x'\n    parameter = 'y'\n  []\n[]\n"
    x = RNG.normal(size=(2, *BASES[t]))
    return ModelCase(f"{t}-promoted", hit, {"x": x}, lambda z: {"y": z["x"]}, model="p")


CASES = [_case(t) for t in BASES] + [_promoted("Scalar"), _promoted("SR2")]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_constant_parameter(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_tensors_reference() -> None:
    from neml2.factory import load_string

    f = load_string(
        "[Tensors]\n  [T]\n    type = Python\n    expr = 'Scalar(torch.tensor([1.0, 2.0]))'\n  []\n[]\n"
        "[Models]\n  [p]\n    type = ScalarConstantParameter\n    value = 'T'\n  []\n[]\n"
    )
    m = f.get_model("p")
    assert list(m.input_spec) == []
    assert torch.equal(m().data, torch.tensor([1.0, 2.0], dtype=torch.float64))
