"""Viscoelastic leaves: values (independent numpy) and derivatives (autograd, finite differences)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from model_hit import model_hit_split as _hit

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(12)
N = 4
SR2A, SR2B, SR2C = (RNG.normal(size=(N, 6)) for _ in range(3))
POS = [RNG.uniform(0.5, 2.0, N) for _ in range(6)]


def _c(a: Any) -> Any:
    """Scalar (batch) -> column broadcasting against Mandel storage."""
    return np.asarray(a)[..., None]


def _dashpot(x: dict[str, np.ndarray], eta: Any) -> dict[str, np.ndarray]:
    return {"viscous_strain_rate": x["stress"] / _c(eta)}


def _kv(x: dict[str, np.ndarray], k: Any, eta: Any) -> dict[str, np.ndarray]:
    return {"stress": _c(k) * x["strain"] + _c(eta) * x["strain_rate"]}


def _zener(x: dict[str, np.ndarray], e0: Any, em: Any, eta: Any) -> dict[str, np.ndarray]:
    ee = x["strain"] - x["viscous_strain"]
    return {"stress": _c(e0) * x["strain"] + _c(em) * ee,
            "viscous_strain_rate": _c(em) * ee / _c(eta)}  # fmt: skip


def _burgers(x: dict[str, np.ndarray], em: Any, etam: Any, ek: Any, etak: Any) -> Any:
    s = _c(em) * (x["strain"] - x["maxwell_viscous_strain"] - x["kelvin_voigt_strain"])
    return {"stress": s, "maxwell_viscous_strain_rate": s / _c(etam),
            "kelvin_voigt_strain_rate": (s - _c(ek) * x["kelvin_voigt_strain"]) / _c(etak)}  # fmt: skip


def _wiechert(x: dict[str, np.ndarray], e0: Any, e1: Any, n1: Any, e2: Any, n2: Any) -> Any:
    a1 = x["strain"] - x["viscous_strain_1"]
    a2 = x["strain"] - x["viscous_strain_2"]
    return {"stress": _c(e0) * x["strain"] + _c(e1) * a1 + _c(e2) * a2,
            "viscous_strain_1_rate": _c(e1) * a1 / _c(n1),
            "viscous_strain_2_rate": _c(e2) * a2 / _c(n2)}  # fmt: skip


ZENER = "equilibrium_modulus = {};maxwell_modulus = {};maxwell_viscosity = {}"
BURGERS = "maxwell_modulus = {};maxwell_viscosity = {};kelvin_modulus = {};kelvin_viscosity = {}"
WIECHERT = ("equilibrium_modulus = {};modulus_1 = {};viscosity_1 = {};modulus_2 = {};"
            "viscosity_2 = {}")  # fmt: skip
P = {f"p{i}": POS[i] for i in range(6)}

CASES = [
    ModelCase("dashpot", _hit("LinearDashpot", "viscosity = 2.5"), {"stress": SR2A},
              lambda x: _dashpot(x, 2.5)),
    ModelCase("dashpot-promoted", _hit("LinearDashpot", "viscosity = 'eta';stress = 's'"),
              {"s": SR2A, "eta": POS[0]},
              lambda x: {"viscous_strain_rate": x["s"] / _c(x["eta"])}),
    ModelCase("kelvin-voigt", _hit("KelvinVoigtElement", "modulus = 3;viscosity = 0.5"),
              {"strain": SR2A, "strain_rate": SR2B}, lambda x: _kv(x, 3.0, 0.5)),
    ModelCase("kelvin-voigt-promoted",
              _hit("KelvinVoigtElement", "modulus = 'p0';viscosity = 'p1';strain = 'e'"),
              {"e": SR2A, "e_rate": SR2B, "p0": POS[0], "p1": POS[1]},
              lambda x: {"stress": _c(x["p0"]) * x["e"] + _c(x["p1"]) * x["e_rate"]}),
    ModelCase("zener", _hit("ZenerElement", ZENER.format(2, 3, 0.7)),
              {"strain": SR2A, "viscous_strain": SR2B}, lambda x: _zener(x, 2.0, 3.0, 0.7)),
    ModelCase("zener-promoted", _hit("ZenerElement", ZENER.format("p0", "p1", "p2")),
              {"strain": SR2A, "viscous_strain": SR2B, **{k: P[k] for k in ("p0", "p1", "p2")}},
              lambda x: _zener(x, x["p0"], x["p1"], x["p2"])),
    ModelCase("burgers", _hit("BurgersElement", BURGERS.format(3, 2, 1.5, 0.4)),
              {"strain": SR2A, "maxwell_viscous_strain": SR2B, "kelvin_voigt_strain": SR2C},
              lambda x: _burgers(x, 3.0, 2.0, 1.5, 0.4)),
    ModelCase("burgers-promoted", _hit("BurgersElement", BURGERS.format("p0", "p1", "p2", "p3")),
              {"strain": SR2A, "maxwell_viscous_strain": SR2B, "kelvin_voigt_strain": SR2C,
               **{k: P[k] for k in ("p0", "p1", "p2", "p3")}},
              lambda x: _burgers(x, x["p0"], x["p1"], x["p2"], x["p3"])),
    ModelCase("wiechert", _hit("WiechertElement", WIECHERT.format(1, 2, 0.5, 4, 3)),
              {"strain": SR2A, "viscous_strain_1": SR2B, "viscous_strain_2": SR2C},
              lambda x: _wiechert(x, 1.0, 2.0, 0.5, 4.0, 3.0)),
    ModelCase("wiechert-promoted",
              _hit("WiechertElement", WIECHERT.format("p0", "p1", "p2", "p3", "p4")),
              {"strain": SR2A, "viscous_strain_1": SR2B, "viscous_strain_2": SR2C,
               **{k: P[k] for k in ("p0", "p1", "p2", "p3", "p4")}},
              lambda x: _wiechert(x, x["p0"], x["p1"], x["p2"], x["p3"], x["p4"])),
    ModelCase("wiechert-shared-modulus",
              _hit("WiechertElement", WIECHERT.format(1, "E", 0.5, "E", 3)),
              {"strain": SR2A, "viscous_strain_1": SR2B, "viscous_strain_2": SR2C, "E": POS[0]},
              lambda x: _wiechert(x, 1.0, x["E"], 0.5, x["E"], 3.0)),
]  # fmt: skip


# one backward-Euler step of the examples (ImplicitUpdate; derivatives by implicit differentiation)
EXAMPLES = Path(__file__).resolve().parents[6] / "examples" / "viscoelasticity"
TIMES = {"t": np.array([0.1, 0.5, 0.3, 2.0]), "t~1": np.array([0.0, 0.2, 0.25, 1.0])}


def _zener_step(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """E_inf = 400, E_M = 600, eta_M = 1200 (zener_relaxation.i)."""
    a = _c((x["t"] - x["t~1"]) * 600 / 1200)
    ev = (x["viscous_strain~1"] + a * x["strain"]) / (1 + a)
    return {"stress": 400 * x["strain"] + 600 * (x["strain"] - ev), "viscous_strain": ev,
            "viscous_strain_rate": 600 * (x["strain"] - ev) / 1200}  # fmt: skip


def _kelvin_voigt_step(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """K = 500, eta = 1000 (kelvin_voigt_creep*.i): K e + eta (e - e~1) / h = applied stress."""
    c = _c(1000 / (x["t"] - x["t~1"]))
    return {"strain": (x["applied_stress"] + c * x["strain~1"]) / (500 + c)}


_STEP = {"t": TIMES["t"], "t~1": TIMES["t~1"]}
CASES += [
    ModelCase("implicit-zener", (EXAMPLES / "zener_relaxation.i").read_text(),
              {"strain": SR2A, "viscous_strain~1": SR2B * 0.1, **_STEP}, _zener_step,
              rtol32=1e-4, atol32=1e-5),
    ModelCase("implicit-kelvin-voigt", (EXAMPLES / "kelvin_voigt_creep.i").read_text(),
              {"applied_stress": SR2A * 10, "strain~1": SR2B * 0.01, **_STEP}, _kelvin_voigt_step,
              rtol32=1e-4, atol32=1e-5),
    ModelCase("implicit-kelvin-voigt-composed",
              (EXAMPLES / "kelvin_voigt_creep_composed.i").read_text(),
              {"applied_stress": SR2A * 10, "strain~1": SR2B * 0.01, **_STEP}, _kelvin_voigt_step,
              rtol32=1e-4, atol32=1e-5),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_viscoelastic_element(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    if dtype != torch.float64:  # Newton tolerances near the float32 resolution
        tols = "abs_tol = 1e-5\nrel_tol = 1e-5\n"
        case = dataclasses.replace(
            case, hit=case.hit.replace("abs_tol = 1e-10\nrel_tol = 1e-8\n", tols)
        )
    check_model(case, dtype=dtype, device=device)


def test_renamed_rates() -> None:
    """Derived rate outputs follow the renamed internal variables (and their knobs)."""
    m = load_string(_hit("ZenerElement", ZENER.format(1, 1, 1) + ";viscous_strain = 'ev'"))
    assert list(m.get_model("model").output_spec) == ["stress", "ev_rate"]
    m = load_string(_hit("BurgersElement", BURGERS.format(1, 1, 1, 1)
                         + ";kelvin_voigt_strain_rate = 'kdot'"))  # fmt: skip
    assert list(m.get_model("model").output_spec) == [
        "stress", "maxwell_viscous_strain_rate", "kdot"]  # fmt: skip
    kv = load_string(_hit("KelvinVoigtElement", "modulus = 1;viscosity = 1;strain = 'e'"))
    assert list(kv.get_model("model").input_spec) == ["e", "e_rate"]


BAD = [
    ("LinearDashpot", "viscosity = -1", "viscosity"),
    ("LinearDashpot", "viscosity = 0", "viscosity"),
    ("KelvinVoigtElement", "modulus = -3;viscosity = 1", "modulus"),
    ("KelvinVoigtElement", "modulus = 3;viscosity = '1 -1'", "viscosity"),
    ("ZenerElement", ZENER.format(-1, 1, 1), "equilibrium_modulus"),
    ("ZenerElement", ZENER.format(0, 1, -2), "maxwell_viscosity"),
    ("BurgersElement", BURGERS.format(1, 1, 0, 1), "kelvin_modulus"),
    ("BurgersElement", BURGERS.format(1, -1, 1, 1), "maxwell_viscosity"),
    ("WiechertElement", WIECHERT.format(1, 1, 1, 1, -5), "viscosity_2"),
    ("WiechertElement", WIECHERT.format(1, -1, 1, 1, 1), "modulus_1"),
]


@pytest.mark.parametrize(("type_", "opts", "option"), BAD, ids=[f"{b[0]}-{b[2]}" for b in BAD])
def test_bad_parameters(type_: str, opts: str, option: str) -> None:
    with pytest.raises(
        ValueError, match=rf"\[Models/model\].*'{option}': must be (non-negative|positive)"
    ):
        load_string(_hit(type_, opts)).get_model("model")


def test_zero_equilibrium_modulus_is_a_maxwell_arm() -> None:
    """E_inf = 0 is allowed (Zener reduces to Maxwell)."""
    load_string(_hit("ZenerElement", ZENER.format(0, 1, 1))).get_model("model")
