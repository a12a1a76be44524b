"""FBComplementarity, MinMapComplementarity and MixedControlSetup."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from model_hit import model_hit as _hit

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(7)
EPS64 = np.finfo(np.float64).eps
SIGN = {"LE": -1.0, "GE": 1.0}


def _fb(x: dict[str, np.ndarray], sa: str = "LE", sb: str = "GE") -> dict[str, np.ndarray]:
    a, b = x["a"], x["b"]
    return {"complementarity": SIGN[sa] * a + SIGN[sb] * b - np.sqrt(a**2 + b**2 + EPS64)}


def _minmap(x: dict[str, np.ndarray], sa: str = "LE", sb: str = "GE") -> dict[str, np.ndarray]:
    return {"complementarity": np.minimum(SIGN[sa] * x["a"], SIGN[sb] * x["b"])}


# a and b with |a| != |b| everywhere (no min-map ties)
A = np.array([-1.0, 0.3, -0.2, 2.0, 0.7, -1.5])
B = np.array([0.5, 1.1, -0.9, -0.4, 0.1, -3.0])
MIX = """
[Models]
  [model]
    type = MixedControlSetup
    control = 'c'
    x_above = 'stress'
    x_below = 'strain'
    y = 'ys'
    z = 'zs'
    {extra}
  []
[]
"""


def _mixed(x: dict[str, np.ndarray], thr: float) -> dict[str, np.ndarray]:
    c = x["c"] > thr
    return {
        "ys": np.where(c, x["stress"], x["strain"]),
        "zs": np.where(c, x["strain"], x["stress"]),
    }


CONTROL = np.array([[1.0, 0.0, 0.0, 1.0, 0.0, 1.0], [0.2, 0.9, 0.7, 0.1, 0.6, 0.0]])

CASES = [
    ModelCase("FB-default", _hit("FBComplementarity"), {"a": A, "b": B}, _fb),
    ModelCase("FB-GE-LE", _hit("FBComplementarity", "a_inequality = GE\n    b_inequality = LE"),
              {"a": A, "b": B}, lambda x: _fb(x, "GE", "LE")),
    ModelCase("FB-renamed",
              _hit("FBComplementarity", "a = 'f'\n    b = 'g'\n    complementarity = 'r'"),
              {"f": A, "g": B},
              lambda x: {"r": _fb({"a": x["f"], "b": x["g"]})["complementarity"]}),
    ModelCase("MinMap-default", _hit("MinMapComplementarity"), {"a": A, "b": B}, _minmap),
    ModelCase("MinMap-GE-GE",
              _hit("MinMapComplementarity", "a_inequality = GE\n    b_inequality = GE"),
              {"a": A, "b": B}, lambda x: _minmap(x, "GE", "GE")),
    ModelCase("MixedControl", MIX.format(extra=""),
              {"c": CONTROL, "stress": RNG.normal(size=(2, 6)), "strain": RNG.normal(size=(2, 6))},
              lambda x: _mixed(x, 0.5)),
    ModelCase("MixedControl-threshold", MIX.format(extra="threshold = 0.65"),
              {"c": CONTROL, "stress": RNG.normal(size=(2, 6)), "strain": RNG.normal(size=(2, 6))},
              lambda x: _mixed(x, 0.65)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_complementarity(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


@pytest.mark.parametrize("t", ["FBComplementarity", "MinMapComplementarity"])
@pytest.mark.parametrize("key", ["a_inequality", "b_inequality"])
def test_bad_inequality(t: str, key: str) -> None:
    f = load_string(_hit(t, f"{key} = LT"))
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{key}'.*LE or GE.*'LT'"):
        f.get_model("model")


def test_mixed_control_bad_threshold() -> None:
    f = load_string(MIX.format(extra="threshold = abc"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'threshold'.*expected a number"):
        f.get_model("model")
