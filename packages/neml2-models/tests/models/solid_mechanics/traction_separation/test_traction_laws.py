"""Traction-separation leaves: values (independent numpy) and derivatives; bad input."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from model_hit import model_hit_split as _hit

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(21)
EPS = np.finfo(np.float64).eps


def _vec(t0: Any, t1: Any, t2: Any) -> np.ndarray:
    return np.stack(np.broadcast_arrays(t0, t1, t2), axis=-1)


# ---------------------------------------------------------------- bilinear
def _bilinear(x: dict[str, np.ndarray], k: float, dc: Any, df: Any, pen: str | None = None) -> Any:
    dm = x["effective_separation"]
    dc, df = x.get("dc", dc), x.get("df", df)
    dstar = np.where(dm < dc, 0.0, np.where(dm < df, df * (dm - dc) / (dm * (df - dc)), 1.0))
    d = np.maximum(dstar, x["damage~1"])
    t = k * (1 - d)[..., None] * _vec(x["normal_separation"], x["tangential_separation_1"],
                                      x["tangential_separation_2"])  # fmt: skip
    if pen is not None:
        t[..., 0] += k * x[pen]
    return {"traction": t, "damage": d}


DM = np.array([0.5, 1.5, 2.5, 4.0, 1.2])
BIL_IN = {"effective_separation": DM, "normal_separation": RNG.uniform(0.1, 1, 5),
          "tangential_separation_1": RNG.normal(size=5), "tangential_separation_2": RNG.normal(size=5),
          "damage~1": np.array([0.05, 0.2, 0.95, 0.3, 0.0])}  # fmt: skip
BIL = "penalty_stiffness = 10;critical_separation = {};full_separation = {}"

# ---------------------------------------------------------------- Salehani-Irani
SI = ("normal_characteristic_length = 0.5;tangential_characteristic_length = 0.4;"
      "normal_strength = 2;shear_strength = 1.5")  # fmt: skip


def _salehani(x: dict[str, np.ndarray], kpen: float = 0.0) -> Any:
    bn = x["normal_separation"] / 0.5
    b1 = x["tangential_separation_1"] / (math.sqrt(2) * 0.4)
    b2 = x["tangential_separation_2"] / (math.sqrt(2) * 0.4)
    d = np.maximum(1 - np.exp(-(bn + b1**2 + b2**2)), x["damage~1"])
    c = math.sqrt(2 * math.e) * 1.5
    t = (1 - d)[..., None] * _vec(math.e * 2 * bn, c * b1, c * b2)
    if "normal_penetration" in x:
        t[..., 0] += kpen * x["normal_penetration"]
    return {"traction": t, "damage": d}


SI_IN = {"normal_separation": np.array([0.05, 0.3, 0.6, 0.2]),
         "tangential_separation_1": np.array([0.1, -0.2, 0.3, 0.05]),
         "tangential_separation_2": np.array([0.0, 0.15, -0.1, 0.02]),
         "damage~1": np.array([0.0, 0.9, 0.2, 0.5])}  # fmt: skip

# ---------------------------------------------------------------- linear / mixity / criteria
SEP = {"normal_separation": RNG.normal(size=4), "tangential_separation_1": RNG.normal(size=4),
       "tangential_separation_2": RNG.normal(size=4)}  # fmt: skip
OLT = "normal_stiffness = 7;tangential_stiffness = 3"
DN = np.array([-0.5, 0.7, 1.3, 2.0])
BETA = np.array([0.3, 0.0, 1.2, 4.0])
DC = np.array([0.05, 0.1, 0.2, 0.15])
CRIT = (
    "mode_mixity = 'beta';critical_separation = 'dc';penalty_stiffness = 10;"
    "mode_I_fracture_toughness = 1;mode_II_fracture_toughness = 2;shear_strength = 3;eta = {}"
)


def _bk(x: dict[str, np.ndarray], eta: float) -> Any:
    b2 = x["beta"] ** 2
    g = 1 + (2 - 1) * (b2 / (1 + b2) + EPS) ** eta
    return {
        "full_separation": np.where(x["normal_separation"] > 0, 2 / (10 * x["dc"]) * g, 2 * 2 / 3)
    }


def _power_law(x: dict[str, np.ndarray], eta: float) -> Any:
    b2 = x["beta"] ** 2
    gc = (1 + b2) / ((1 / 1) ** eta + (b2 / 2 + EPS) ** eta) ** (1 / eta)
    return {
        "full_separation": np.where(x["normal_separation"] > 0, 2 / (10 * x["dc"]) * gc, 2 * 2 / 3)
    }


def _camanho(x: dict[str, np.ndarray]) -> Any:
    n0, s0, b = 5 / 10, 8 / 10, x["beta"]
    dc = n0 * s0 * np.sqrt(1 + b**2) / np.sqrt(s0**2 + b**2 * n0**2 + EPS)
    return {"critical_separation": np.where(x["normal_separation"] > 0, dc, s0)}


CD = "mode_mixity = 'beta';penalty_stiffness = 10;normal_strength = 5;shear_strength = 8"

CASES = [
    ModelCase("bilinear", _hit("BilinearTraction", BIL.format(1.0, 3.0)), BIL_IN,
              lambda x: _bilinear(x, 10.0, 1.0, 3.0)),
    ModelCase("bilinear-promoted", _hit("BilinearTraction", BIL.format("dc", "df")),
              {**BIL_IN, "dc": [1.0, 1.1, 0.9, 1.0, 0.8], "df": [3.0, 2.5, 3.5, 3.0, 2.0]},
              lambda x: _bilinear(x, 10.0, None, None)),
    ModelCase("bilinear-penetration",
              _hit("BilinearTraction", BIL.format(1.0, 3.0) + ";normal_penetration = 'dp'"),
              {**BIL_IN, "dp": -RNG.uniform(0, 1, 5)}, lambda x: _bilinear(x, 10.0, 1.0, 3.0, "dp")),
    ModelCase("bilinear-renamed",
              _hit("BilinearTraction", BIL.format(1.0, 3.0) + ";damage = 'D'"),
              {**{k: v for k, v in BIL_IN.items() if k != "damage~1"}, "D~1": BIL_IN["damage~1"]},
              lambda x: (r := _bilinear({**x, "damage~1": x["D~1"]}, 10.0, 1.0, 3.0))
              and {"traction": r["traction"], "D": r["damage"]}),
    ModelCase("salehani-irani", _hit("SalehaniIraniTraction", SI), SI_IN, _salehani),
    ModelCase("salehani-irani-penetration",
              _hit("SalehaniIraniTraction", SI + ";penalty_stiffness = 100;normal_penetration = 'normal_penetration'"),
              {**SI_IN, "normal_penetration": np.array([-0.1, 0.0, -0.3, -0.02])},
              lambda x: _salehani(x, 100.0)),
    ModelCase("orthotropic", _hit("OrthotropicLinearTraction", OLT), SEP,
              lambda x: {"traction": _vec(7 * x["normal_separation"], 3 * x["tangential_separation_1"],
                                          3 * x["tangential_separation_2"])}),
    ModelCase("orthotropic-penetration",
              _hit("OrthotropicLinearTraction", OLT + ";penalty_stiffness = 50;normal_penetration = 'p'"),
              {**SEP, "p": -RNG.uniform(0, 1, 4)},
              lambda x: {"traction": _vec(7 * x["normal_separation"] + 50 * x["p"],
                                          3 * x["tangential_separation_1"],
                                          3 * x["tangential_separation_2"])}),
    ModelCase("mode-mixity", _hit("ModeMixity", "tangential_separation = 'ds'"),
              {"normal_separation": DN, "ds": np.abs(RNG.normal(size=4))},
              lambda x: {"mode_mixity": np.where(x["normal_separation"] > 0,
                                                 x["ds"] / np.where(DN > 0, DN, 1), 0.0)}),
    ModelCase("bk", _hit("BenzeggaghKenaneFullSeparation", CRIT.format(2.2)),
              {"normal_separation": DN, "beta": BETA, "dc": DC}, lambda x: _bk(x, 2.2)),
    ModelCase("bk-sublinear", _hit("BenzeggaghKenaneFullSeparation", CRIT.format(1.5)),
              {"normal_separation": DN, "beta": BETA + 0.1, "dc": DC}, lambda x: _bk(x, 1.5)),
    ModelCase("power-law", _hit("PowerLawFullSeparation", CRIT.format(2.0)),
              {"normal_separation": DN, "beta": BETA, "dc": DC}, lambda x: _power_law(x, 2.0)),
    ModelCase("power-law-eta", _hit("PowerLawFullSeparation", CRIT.format(1.3)),
              {"normal_separation": DN, "beta": BETA + 0.2, "dc": DC}, lambda x: _power_law(x, 1.3)),
    ModelCase("camanho-davila", _hit("CamanhoDavilaCriticalSeparation", CD),
              {"normal_separation": DN, "beta": BETA}, _camanho),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_traction_separation(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_constant_mode_mixity() -> None:
    """A literal mode mixity is a parameter (no extra input)."""
    m = load_string(_hit("CamanhoDavilaCriticalSeparation", CD.replace("'beta'", "0.5")))
    assert list(m.get_model("model").input_spec) == ["normal_separation"]


BAD = [
    ("ModeMixity", "tangential_separation = 'normal_separation'", "normal_separation"),
    ("ModeMixity", "mode_mixity = 'tangential_separation'", "mode_mixity"),
    ("BenzeggaghKenaneFullSeparation", CRIT.format(2).replace("'beta'", "'normal_separation'"),
     "mode_mixity"),
    ("PowerLawFullSeparation", CRIT.format(2).replace("'dc'", "'beta'"), "critical_separation"),
    ("CamanhoDavilaCriticalSeparation", CD.replace("'beta'", "'critical_separation'"),
     "mode_mixity"),
    ("BenzeggaghKenaneFullSeparation", CRIT.format(0), "eta"),
    ("PowerLawFullSeparation", CRIT.format(2).replace("toughness = 2", "toughness = -2"),
     "mode_II_fracture_toughness"),
    ("CamanhoDavilaCriticalSeparation", CD.replace("shear_strength = 8", "shear_strength = -8"),
     "shear_strength"),
    ("BilinearTraction", BIL.format(1.0, 3.0).replace("= 10", "= -10"), "penalty_stiffness"),
    ("BilinearTraction", BIL.format(1.0, 0.5), "full_separation"),
    ("BilinearTraction", BIL.format(-1.0, 3.0), "critical_separation"),
    ("OrthotropicLinearTraction", OLT.replace("= 3", "= -3"), "tangential_stiffness"),
    ("OrthotropicLinearTraction", OLT + ";penalty_stiffness = -1", "penalty_stiffness"),
    ("SalehaniIraniTraction", SI.replace("= 0.5", "= 0"), "normal_characteristic_length"),
    ("SalehaniIraniTraction", SI + ";penalty_stiffness = -5", "penalty_stiffness"),
]  # fmt: skip


@pytest.mark.parametrize(("type_", "opts", "option"), BAD, ids=[f"{b[0]}-{b[2]}" for b in BAD])
def test_bad_input(type_: str, opts: str, option: str) -> None:
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        load_string(_hit(type_, opts)).get_model("model")
