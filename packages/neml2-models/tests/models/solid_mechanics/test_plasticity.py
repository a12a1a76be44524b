"""Plasticity leaves: Mandel stress, yield functions, normality, flow rules, hardening."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from model_hit import model_hit as _hit

from neml2.factory import load_input, load_string
from neml2.models.testing import ModelCase, case_id, check_model, make_inputs

RNG = np.random.default_rng(7)
C23 = np.sqrt(2.0 / 3.0)
I6 = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
EPS64 = np.finfo(np.float64).eps


def _dev(a: np.ndarray) -> Any:
    return a - a[..., :3].sum(-1, keepdims=True) / 3.0 * I6


def _vm(a: np.ndarray) -> Any:
    d = _dev(a)
    return np.sqrt(1.5 * (d * d).sum(-1))


def _col(a: np.ndarray) -> Any:
    return np.asarray(a)[..., None]


N = 4
SR2X = RNG.normal(size=(N, 6)) * 100
POS = RNG.uniform(0.1, 1.0, N)
SC = RNG.normal(size=N)

NORMALITY_HIT = """
[Models]
  [vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'mandel_stress'
    invariant = 'effective_stress'
  []
  [yield_surface]
    type = YieldFunction
    yield_stress = 5
    isotropic_hardening = 'isotropic_hardening'
  []
  [flow]
    type = ComposedModel
    models = 'vonmises yield_surface'
  []
  [model]
    type = Normality
    model = 'flow'
    function = 'yield_function'
    from = 'mandel_stress isotropic_hardening'
    to = 'flow_direction isotropic_hardening_direction'
  []
[]
"""

GTN_HIT = _hit("GTNYieldFunction", "yield_stress = 'sy'\n    q1 = 1.5\n    q2 = 'q2'\n    q3 = 2.25"
               "\n    isotropic_hardening = 'h'")  # fmt: skip


def _gtn(x: dict[str, Any]) -> dict[str, Any]:
    sf = x["sy"] + x["h"]
    phi = x["void_fraction"]
    return {"yield_function": (x["flow_invariant"] / sf) ** 2
            + 3.0 * phi * np.cosh(x["q2"] * x["poro_invariant"] / (2 * sf)) - (1 + 2.25 * phi**2)}  # fmt: skip


NORMALITY_GTN = """
[Models]
  [model]
    type = Normality
    model = 'gtn'
    function = 'yield_function'
    from = 'flow_invariant void_fraction h'
    to = 'n_flow n_phi n_h'
  []
[]
"""


def _gtn_gradient(x: dict[str, Any]) -> dict[str, Any]:
    """Hand-derived gradient of the GTN function (q1 = 1.5, q3 = 2.25)."""
    sf = x["sy"] + x["h"]
    se, phi = x["flow_invariant"], x["void_fraction"]
    w = x["q2"] * x["poro_invariant"] / (2 * sf)
    return {
        "n_flow": 2 * se / sf**2,
        "n_phi": 3.0 * np.cosh(w) - 4.5 * phi,
        "n_h": -2 * se**2 / sf**3 - 3.0 * phi * np.sinh(w) * w / sf,
    }


def _chaboche(x: dict[str, np.ndarray], C: float, g: float, A: float, a: float) -> Any:
    X = x["back_stress"]
    r = np.sqrt((X * X).sum(-1) + EPS64)
    return (2 / 3 * C * x["flow_direction"] - g * X) * _col(x["flow_rate"]) - A * _col(
        r ** (a - 1)
    ) * X


def _fdir(m: np.ndarray) -> Any:
    d = _dev(m)
    return 1.5 * d / _col(np.sqrt(1.5) * np.sqrt((d * d).sum(-1) + EPS64))


CASES = [
    ModelCase("mandel", _hit("IsotropicMandelStress", "cauchy_stress = 'stress'"),
              {"stress": SR2X}, lambda x: {"mandel_stress": x["stress"]}),
    ModelCase("yield", _hit("YieldFunction", "yield_stress = 5"),
              {"effective_stress": POS * 100}, lambda x: {"yield_function": C23 * (x["effective_stress"] - 5)}),
    ModelCase("yield-hardening-promoted",
              _hit("YieldFunction", "yield_stress = 'sy'\n    isotropic_hardening = 'h'"),
              {"effective_stress": POS * 100, "h": SC, "sy": POS},
              lambda x: {"yield_function": C23 * (x["effective_stress"] - x["sy"] - x["h"])}),
    ModelCase("gtn", GTN_HIT,
              {"flow_invariant": RNG.uniform(50, 100, N), "poro_invariant": RNG.uniform(-50, 50, N),
               "void_fraction": RNG.uniform(0.01, 0.1, N), "h": RNG.uniform(1, 10, N),
               "sy": RNG.uniform(50, 60, N), "q2": RNG.uniform(1, 1.5, N)}, _gtn),
    ModelCase("gtn-no-hardening",
              _hit("GTNYieldFunction", "yield_stress = 60\n    q1 = 1.5\n    q2 = 1.0\n    q3 = 2.25"),
              {"flow_invariant": RNG.uniform(50, 100, N), "poro_invariant": RNG.uniform(-50, 50, N),
               "void_fraction": RNG.uniform(0.01, 0.1, N)},
              lambda x: _gtn({**x, "sy": 60.0, "h": 0.0, "q2": 1.0})),
    ModelCase("normality", NORMALITY_HIT,
              {"mandel_stress": SR2X, "isotropic_hardening": SC},
              lambda x: {"flow_direction": C23 * 1.5 * _dev(x["mandel_stress"]) / _col(_vm(x["mandel_stress"])),
                         "isotropic_hardening_direction": -C23 * np.ones(N)}),
    ModelCase("j2-flow-direction", _hit("AssociativeJ2FlowDirection"), {"mandel_stress": SR2X},
              lambda x: {"flow_direction": _fdir(x["mandel_stress"])}),
    ModelCase("plastic-flow", _hit("AssociativePlasticFlow"),
              {"flow_rate": POS, "flow_direction": SR2X / 100},
              lambda x: {"plastic_strain_rate": _col(x["flow_rate"]) * x["flow_direction"]}),
    ModelCase("iso-plastic-hardening", _hit("AssociativeIsotropicPlasticHardening"),
              {"flow_rate": POS, "isotropic_hardening_direction": SC},
              lambda x: {"equivalent_plastic_strain_rate": -x["flow_rate"] * x["isotropic_hardening_direction"]}),
    ModelCase("kin-plastic-hardening", _hit("AssociativeKinematicPlasticHardening"),
              {"flow_rate": POS, "kinematic_hardening_direction": SR2X / 100},
              lambda x: {"kinematic_plastic_strain_rate": -_col(x["flow_rate"]) * x["kinematic_hardening_direction"]}),
    ModelCase("linear-iso", _hit("LinearIsotropicHardening", "hardening_modulus = 'K'"),
              {"equivalent_plastic_strain": POS, "K": POS * 1000},
              lambda x: {"isotropic_hardening": x["K"] * x["equivalent_plastic_strain"]}),
    ModelCase("voce", _hit("VoceIsotropicHardening", "saturated_hardening = 100\n    saturation_rate = 1.2"),
              {"equivalent_plastic_strain": POS},
              lambda x: {"isotropic_hardening": 100 * (1 - np.exp(-1.2 * x["equivalent_plastic_strain"]))}),
    ModelCase("voce-promoted", _hit("VoceIsotropicHardening", "saturated_hardening = 'R'\n    saturation_rate = 'd'"),
              {"equivalent_plastic_strain": POS, "R": POS * 100, "d": POS + 1},
              lambda x: {"isotropic_hardening": x["R"] * (1 - np.exp(-x["d"] * x["equivalent_plastic_strain"]))}),
    ModelCase("slope-voce",
              _hit("SlopeSaturationVoceIsotropicHardening", "saturated_hardening = 'R'\n    initial_hardening_rate = 't0'"),
              {"flow_rate": POS, "isotropic_hardening": SC * 10, "R": -POS * 100 - 1, "t0": POS * 50},
              lambda x: {"isotropic_hardening_rate": np.sign(x["R"]) * x["t0"]
                         * (1 - x["isotropic_hardening"] / x["R"]) * x["flow_rate"]}),
    ModelCase("linear-kin", _hit("LinearKinematicHardening", "hardening_modulus = 'H'"),
              {"kinematic_plastic_strain": SR2X / 1000, "H": POS * 1000},
              lambda x: {"back_stress": _col(x["H"]) * x["kinematic_plastic_strain"]}),
    ModelCase("frederick-armstrong", _hit("FredrickArmstrongPlasticHardening", "C = 'C'\n    g = 9"),
              {"flow_rate": POS, "flow_direction": SR2X / 100, "back_stress": SR2X / 10, "C": POS * 1000},
              lambda x: {"back_stress_rate": (2 / 3 * _col(x["C"]) * x["flow_direction"] - 9 * x["back_stress"])
                         * _col(x["flow_rate"])}),
    ModelCase("chaboche", _hit("ChabochePlasticHardening", "C = 10000\n    g = 100\n    A = 1e-8\n    a = 1.2"),
              {"flow_rate": POS, "flow_direction": SR2X / 100, "back_stress": SR2X / 10},
              lambda x: {"back_stress_rate": _chaboche(x, 1e4, 100, 1e-8, 1.2)}),
    ModelCase("chaboche-promoted", _hit("ChabochePlasticHardening", "C = 'C'\n    g = 'g'\n    A = 'A'\n    a = 'a'"),
              {"flow_rate": POS, "flow_direction": SR2X / 100, "back_stress": SR2X / 10, "C": POS * 1e3,
               "g": POS * 10, "A": POS * 1e-3, "a": POS + 2},
              lambda x: {"back_stress_rate": np.stack([_chaboche({k: x[k][i] for k in x}, x["C"][i], x["g"][i],
                                                                 x["A"][i], x["a"][i]) for i in range(N)])}),
    ModelCase("gurson", _hit("GursonCavitation"),
              {"plastic_strain_rate": SR2X / 100, "void_fraction": POS / 10},
              lambda x: {"void_fraction_rate": (1 - x["void_fraction"]) * x["plastic_strain_rate"][:, :3].sum(-1)}),
    ModelCase("j2-trial-update",
              _hit("LinearIsotropicElasticJ2TrialStressUpdate",
                   "coefficients = '1e5 0.3'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"),
              {"elastic_trial_stress": POS * 300, "equivalent_plastic_strain": POS / 100,
               "equivalent_plastic_strain~1": POS / 200},
              lambda x: {"updated_trial_stress": x["elastic_trial_stress"] - 3 * 1e5 / 2.6
                         * (x["equivalent_plastic_strain"] - x["equivalent_plastic_strain~1"])}),
    ModelCase("j2-trial-update-promoted",
              _hit("LinearIsotropicElasticJ2TrialStressUpdate",
                   "coefficients = 'K G'\n    coefficient_types = 'BULK_MODULUS SHEAR_MODULUS'"),
              {"elastic_trial_stress": POS * 300, "equivalent_plastic_strain": POS / 100,
               "equivalent_plastic_strain~1": POS / 200, "K": POS * 1e3, "G": POS * 1e3},
              lambda x: {"updated_trial_stress": x["elastic_trial_stress"] - 3 * x["G"]
                         * (x["equivalent_plastic_strain"] - x["equivalent_plastic_strain~1"])}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_plasticity(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


CHABOCHE = Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i"


def test_chaboche_implicit_rate_jacobian(dtype: torch.dtype, device: torch.device) -> None:
    """The benchmark's residual model loads, evaluates at batch 7; its Jacobian matches autograd."""
    b = 7
    rng = np.random.default_rng(3)
    x = {
        "equivalent_plastic_strain": rng.uniform(0.01, 0.1, b), "X1": rng.normal(size=(b, 6)),
        "X2": rng.normal(size=(b, 6)), "stress": rng.normal(size=(b, 6)) * 100,
        "strain": rng.normal(size=(b, 6)) * 1e-3, "strain~1": rng.normal(size=(b, 6)) * 1e-3,
        "t": np.full(b, 1.0), "t~1": np.full(b, 0.5),
        "equivalent_plastic_strain~1": rng.uniform(0, 0.01, b), "X1~1": rng.normal(size=(b, 6)),
        "X2~1": rng.normal(size=(b, 6)), "stress~1": rng.normal(size=(b, 6)) * 50,
    }  # fmt: skip
    model = load_input(CHABOCHE, dtype=dtype, device=device).get_model("implicit_rate")
    assert set(model.input_spec) == set(x)
    out = model.value(make_inputs(model, x, dtype, device))
    assert {k: tuple(v.data.shape) for k, v in out.items()} == {
        "stress_residual": (b, 6), "X1_residual": (b, 6), "X2_residual": (b, 6),
        "equivalent_plastic_strain_residual": (b,),
    }  # fmt: skip
    case = ModelCase("chaboche", CHABOCHE.read_text(), x, model="implicit_rate", fd_rtol=1e-5)
    check_model(case, dtype=dtype, device=device)


NORMALITY_BAD = [
    ("function = 'yield_function'", "function = 'nope'", r"'function'.*not an output"),
    (
        "from = 'mandel_stress isotropic_hardening'",
        "from = 'mandel_stress bogus'",
        r"'from'.*bogus",
    ),
    ("to = 'flow_direction isotropic_hardening_direction'", "to = 'flow_direction'", r"'to'"),
]


@pytest.mark.parametrize(("old", "new", "match"), NORMALITY_BAD)
def test_normality_bad_options(old: str, new: str, match: str) -> None:
    f = load_string(NORMALITY_HIT.replace(old, new))
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + match):
        f.get_model("model")


def test_benchmark_bad_invariant_type() -> None:
    text = CHABOCHE.read_text().replace("'VONMISES'", "'VON_MISES'")
    with pytest.raises(ValueError, match=r"\[Models/vonmises\].*'invariant_type'"):
        load_string(text).get_model("implicit_rate")


def test_normality_requires_second_order() -> None:
    """A first-order-only leaf (AssociativeJ2FlowDirection) inside the function model."""
    text = NORMALITY_HIT.replace(
        "  [flow]\n", "  [j2dir]\n    type = AssociativeJ2FlowDirection\n  []\n  [flow]\n"
    ).replace("models = 'vonmises yield_surface'", "models = 'vonmises yield_surface j2dir'")
    with pytest.raises(TypeError, match=r"\[Models/model\].*second order"):
        load_string(text).get_model("model")


def test_normality_rejects_incoming_second_order() -> None:
    from neml2.models._typed import identity_seed

    model = load_string(NORMALITY_HIT).get_model("model")
    x = make_inputs(model, {"mandel_stress": SR2X, "isotropic_hardening": SC}, torch.float64, "cpu")
    args = [x[n] for n in model.input_spec]
    v = {n: {n: identity_seed(a)} for n, a in zip(model.input_spec, args, strict=True)}
    with pytest.raises(RuntimeError, match="second-order"):
        model(*args, v=v, v2={})
