"""ScalarMultiplication (y = A prod x_i^{+-1}) and ArrheniusParameter (p0 exp(-Q/(R T)))."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(5)


def _mult(opts: str) -> str:
    return f"""
[Models]
  [model]
    type = ScalarMultiplication
    {opts}
  []
[]
"""


def _pos(*shape: int) -> np.ndarray:
    return 0.5 + RNG.random(shape)


ARRHENIUS = """
[Models]
  [D]
    type = ArrheniusParameter
    temperature = 'T'
    reference_value = 2.5
    activation_energy = 3e4
    ideal_gas_constant = 8.314
  []
[]
"""

CASES = [
    ModelCase("one-factor", _mult("from = 'a'\n    to = 'y'"), {"a": RNG.normal(size=3)},
              lambda x: {"y": x["a"]}),
    ModelCase("product-scaled",
              _mult("from = 'a b c'\n    to = 'y'\n    scaling = -1.5"),
              {"a": RNG.normal(size=4), "b": RNG.normal(size=4), "c": RNG.normal(size=4)},
              lambda x: {"y": -1.5 * x["a"] * x["b"] * x["c"]}),
    ModelCase("reciprocal-flags",
              _mult("from = 'a b c'\n    to = 'y'\n    reciprocal = 'false true true'\n"
                    "    scaling = 2"),
              {"a": RNG.normal(size=4), "b": _pos(4), "c": -_pos(4)},
              lambda x: {"y": 2 * x["a"] / x["b"] / x["c"]}),
    ModelCase("reciprocal-all",
              _mult("from = 'a b'\n    to = 'y'\n    reciprocal = true"),
              {"a": _pos(2), "b": _pos(2)}, lambda x: {"y": 1 / (x["a"] * x["b"])}),
    ModelCase("promoted-scaling",
              _mult("from = 'a b'\n    to = 'y'\n    reciprocal = 'true false'\n"
                    "    scaling = 's'"),
              {"a": _pos(3), "b": RNG.normal(size=3), "s": RNG.normal(size=3)},
              lambda x: {"y": x["s"] * x["b"] / x["a"]}),
    ModelCase("promoted-scaling-one-factor", _mult("from = 'a'\n    to = 'y'\n    scaling = 's'"),
              {"a": RNG.normal(size=3), "s": RNG.normal(size=3)},
              lambda x: {"y": x["s"] * x["a"]}),
    ModelCase("arrhenius", ARRHENIUS, {"T": 300.0 + 500.0 * RNG.random(5)},
              lambda x: {"D": 2.5 * np.exp(-3e4 / (8.314 * x["T"]))}, model="D"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scalar_multiplication(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


@pytest.mark.parametrize(
    ("opts", "pattern"),
    [
        ("from = 'a b'\n    reciprocal = 'true false true'", r"'reciprocal'.*expected 1 or 2"),
        ("from = 'a b'\n    reciprocal = 'yes'", r"'reciprocal'.*true/false.*'yes'"),
        ("from = 'a a'", r"'from'.*duplicate"),
        ("from = ''", r"'from'.*at least one"),
    ],
)
def test_multiplication_bad_options(opts: str, pattern: str) -> None:
    f = load_string(_mult(opts))
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + pattern):
        f.get_model("model")


def test_arrhenius_missing_gas_constant() -> None:
    f = load_string(ARRHENIUS.replace("    ideal_gas_constant = 8.314\n", ""))
    with pytest.raises(ValueError, match=r"\[Models/D\].*'ideal_gas_constant'"):
        f.get_model("D")


def test_arrhenius_zero_gas_constant() -> None:
    f = load_string(ARRHENIUS.replace("8.314", "0"))
    with pytest.raises(ValueError, match=r"\[Models/D\].*'ideal_gas_constant'.*nonzero"):
        f.get_model("D")


COMPOSED = """
[Models]
  [vm]
    type = SR2Invariant
    invariant_type = VONMISES
    tensor = 'stress'
    invariant = 's'
  []
  [D]
    type = ArrheniusParameter
    temperature = 'T'
    reference_value = 2.0
    activation_energy = 1e4
    ideal_gas_constant = 8.314
  []
  [prod]
    type = ScalarMultiplication
    from = 's D'
    reciprocal = 'false true'
    to = 'y'
  []
  [model]
    type = ComposedModel
    models = 'vm D prod'
  []
[]
"""


def _composed(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    s = x["stress"]
    dev = s[..., :3] - s[..., :3].mean(-1, keepdims=True)
    ss = (dev**2).sum(-1) + (s[..., 3:] ** 2).sum(-1)
    vm = np.sqrt(1.5 * ss + np.finfo(np.float64).eps)
    return {"y": vm / (2.0 * np.exp(-1e4 / (8.314 * x["T"])))}


COMPOSED_CASES = [
    ModelCase("composed-second-order", COMPOSED,
              {"stress": 50.0 * RNG.normal(size=(3, 6)), "T": 400.0 + 100.0 * RNG.random(3)},
              _composed, second_order=True),
]  # fmt: skip


@pytest.mark.parametrize("case", COMPOSED_CASES, ids=case_id)
def test_composed_chain(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)
