"""<T>ParameterToVariable: to = parameter 'from' (literal, [Tensors] or promoted variable)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(12)
BASES = {
    "Scalar": (), "Vec": (3,), "MRP": (3,), "WR2": (3,), "R2": (3, 3), "SR2": (6,),
    "SSR4": (6, 6), "MillerIndex": (3,),
}  # fmt: skip


def _hit(t: str, spec: str) -> str:
    return (
        f"[Models]\n  [model]\n    type = {t}ParameterToVariable\n    from = '{spec}'\n"
        f"    to = 'y'\n  []\n[]\n"
    )


def _literal(t: str) -> ModelCase:
    vals = RNG.normal(size=BASES[t])
    text = " ".join(f"{v:.17g}" for v in np.ravel(vals))

    def expected(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"y": vals}

    return ModelCase(t, _hit(t, text), {}, expected)


def _promoted(t: str) -> ModelCase:
    x = RNG.normal(size=(3, *BASES[t]))
    return ModelCase(f"{t}-promoted", _hit(t, "x"), {"x": x}, lambda z: {"y": z["x"]})


CASES = [_literal(t) for t in BASES] + [_promoted(t) for t in BASES]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_parameter_to_variable(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_tensors_reference_is_a_parameter() -> None:
    from neml2.factory import load_string

    f = load_string(
        "[Tensors]\n  [T]\n    type = Python\n    expr = 'Vec(torch.tensor([[1.0, 2, 3], [4, 5, 6]]))'\n"
        "  []\n[]\n" + _hit("Vec", "T")
    )
    m = f.get_model("model")
    assert list(m.input_spec) == []
    assert [n for n, _ in m.named_parameters()] == ["param"]  # v3 stores option "from" as "param"
    want = torch.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=torch.float64)
    assert torch.equal(m().data, want)


def test_missing_from() -> None:
    from neml2.factory import load_string

    f = load_string("[Models]\n  [model]\n    type = SR2ParameterToVariable\n  []\n[]\n")
    with pytest.raises(ValueError, match=r"\[Models/model\].*'from'"):
        f.get_model("model")
