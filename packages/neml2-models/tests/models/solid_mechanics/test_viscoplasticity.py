"""Viscoplasticity: Perzyna, static recovery, thermal annealing, Kocks-Mecking, Olevsky."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import torch
from model_hit import model_hit as _hit

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(9)
N = 4
EPS64 = np.finfo(np.float64).eps
POS = RNG.uniform(0.5, 1.5, N)
SR2X = RNG.normal(size=(N, 6)) * 10
KB, BV, EPS0 = 1.38e-23, 2.5e-10, 1e10
KM = f"eps0 = {EPS0}\n    k = {KB}\n    b = {BV}"


def _col(a: np.ndarray) -> Any:
    return np.asarray(a)[..., None]


def _kin_recovery(x: dict[str, np.ndarray], tau: Any, n: Any) -> Any:
    X = x["back_stress"]
    r = np.sqrt((X * X).sum(-1) + EPS64)
    return -_col((r / tau) ** (n - 1) / tau) * X


F = np.array([-2.0, 5.0, 20.0, 40.0])
T = np.array([250.0, 450.0, 650.0, 900.0])
CASES = [
    ModelCase("perzyna", _hit("PerzynaPlasticFlowRate", "reference_stress = 100\n    exponent = 2"),
              {"yield_function": F}, lambda x: {"flow_rate": (np.abs(x["yield_function"]) / 100) ** 2
                                                * (x["yield_function"] > 0)}),
    ModelCase("perzyna-promoted", _hit("PerzynaPlasticFlowRate", "reference_stress = 'eta'\n    exponent = 'n'"),
              {"yield_function": F, "eta": POS * 100, "n": POS + 2},
              lambda x: {"flow_rate": (np.abs(x["yield_function"]) / x["eta"]) ** x["n"] * (x["yield_function"] > 0)}),
    ModelCase("iso-recovery", _hit("PowerLawIsotropicHardeningStaticRecovery", "tau = 'tau'\n    n = 'n'"),
              {"isotropic_hardening": np.array([-3.0, -1.0, 2.0, 4.0]), "tau": POS * 10, "n": POS + 1},
              lambda x: {"isotropic_hardening_rate": -(np.abs(x["isotropic_hardening"]) / x["tau"]) ** (x["n"] - 1)
                         * x["isotropic_hardening"] / x["tau"]}),
    # X = 0 (the zero back stress start of an implicit solve)
    ModelCase("kin-recovery-at-zero", _hit("PowerLawKinematicHardeningStaticRecovery", "tau = 'tau'\n    n = 'n'"),
              {"back_stress": SR2X * np.array([0.0, 0.0, 1.0, 0.0])[:, None], "tau": POS * 20,
               "n": np.array([2.0, 2.5, 3.0, 3.5])},
              lambda x: {"back_stress_rate": _kin_recovery(x, x["tau"], x["n"])}),
    ModelCase("kin-recovery", _hit("PowerLawKinematicHardeningStaticRecovery", "tau = 20\n    n = 3"),
              {"back_stress": SR2X}, lambda x: {"back_stress_rate": _kin_recovery(x, 20.0, 3.0)}),
    ModelCase("kin-recovery-promoted", _hit("PowerLawKinematicHardeningStaticRecovery", "tau = 'tau'\n    n = 'n'"),
              {"back_stress": SR2X, "tau": POS * 20, "n": POS + 2},
              lambda x: {"back_stress_rate": _kin_recovery(x, x["tau"], x["n"])}),
    ModelCase("scalar-annealing", _hit("ScalarTwoStageThermalAnnealing", "T1 = 400\n    T2 = 600\n    tau = 5"),
              {"base_rate": RNG.normal(size=N), "base": RNG.normal(size=N), "temperature": T},
              lambda x: {"modified_rate": (x["temperature"] < 400) * x["base_rate"]
                         - (x["temperature"] >= 600) * x["base"] / 5}),
    ModelCase("sr2-annealing", _hit("SR2TwoStageThermalAnnealing", "T1 = 400\n    T2 = 600\n    tau = 5"),
              {"base_rate": SR2X, "base": -SR2X, "temperature": T},
              lambda x: {"modified_rate": _col(x["temperature"] < 400) * x["base_rate"]
                         - _col(x["temperature"] >= 600) * x["base"] / 5}),
    ModelCase("km-activation-energy", _hit("KocksMeckingActivationEnergy", f"shear_modulus = 'mu'\n    {KM}"),
              {"temperature": T, "strain_rate": POS * 1e-3, "mu": POS * 5e4},
              lambda x: {"activation_energy": KB * x["temperature"] / (x["mu"] * BV**3)
                         * np.log(EPS0 / x["strain_rate"])}),
    ModelCase("km-flow-switch", _hit("KocksMeckingFlowSwitch", "g0 = 'g0'\n    sharpness = 2.0"),
              {"activation_energy": POS, "rate_independent_flow_rate": POS * 2,
               "rate_dependent_flow_rate": POS * 3, "g0": POS[::-1].copy()},
              lambda x: {"flow_rate": (s := 0.5 * (np.tanh(2 * (x["activation_energy"] - x["g0"])) + 1))
                         * x["rate_dependent_flow_rate"] + (1 - s) * x["rate_independent_flow_rate"]}),
    ModelCase("km-flow-viscosity", _hit("KocksMeckingFlowViscosity", f"A = 'A'\n    B = -4\n    shear_modulus = 5e4\n    {KM}"),
              {"temperature": T, "A": -POS},
              lambda x: {"model": np.exp(-4) * 5e4 * EPS0 ** (KB * x["temperature"] * x["A"] / (5e4 * BV**3))}),
    ModelCase("km-intercept", _hit("KocksMeckingIntercept", "A = 'A'\n    B = -4\n    C = -5"),
              {"A": -POS}, lambda x: {"intercept": (-5 + 4) / x["A"]}),
    ModelCase("km-rate-sensitivity", _hit("KocksMeckingRateSensitivity", f"A = -3\n    shear_modulus = 'mu'\n    k = {KB}\n    b = {BV}"),
              {"temperature": T, "mu": POS * 5e4},
              lambda x: {"rate_sensitivity": -x["mu"] * BV**3 / (KB * x["temperature"] * -3)}),
    ModelCase("km-yield-stress", _hit("KocksMeckingYieldStress", "C = -5\n    shear_modulus = 5e4"),
              {}, lambda x: {"yield_stress": np.array(5e4 * np.exp(-5))}),
    ModelCase("km-yield-stress-promoted", _hit("KocksMeckingYieldStress", "C = 'C'\n    shear_modulus = 'mu'"),
              {"C": -POS, "mu": POS * 5e4}, lambda x: {"yield_stress": x["mu"] * np.exp(x["C"])}),
    ModelCase("olevsky", _hit("OlevskySinteringStress", "surface_tension = 'gamma'\n    particle_radius = 2e-6"),
              {"void_fraction": POS / 10, "gamma": POS},
              lambda x: {"sintering_stress": 3 * x["gamma"] * x["void_fraction"] ** 2 / 2e-6}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_viscoplasticity(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


@pytest.mark.parametrize("bad", ["-1", "inf", "nan"])
@pytest.mark.parametrize("opt", ["eps0", "k", "b"])
def test_kocks_mecking_positive_constants(opt: str, bad: str) -> None:
    text = _hit("KocksMeckingActivationEnergy", f"shear_modulus = 5e4\n    {KM}")
    text = re.sub(rf"\b{opt} = \S+", f"{opt} = {bad}", text, count=1)
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{opt}'.*positive and finite"):
        load_string(text).get_model("model")


@pytest.mark.parametrize(
    ("opts", "match"),
    [
        ("T1 = 700\n    T2 = 600\n    tau = 5", r"'T2'.*below T1"),
        ("T1 = 4\n    T2 = 6\n    tau = 0", r"'tau'"),
    ],
)
def test_annealing_bad_parameters(opts: str, match: str) -> None:
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + match):
        load_string(_hit("SR2TwoStageThermalAnnealing", opts)).get_model("model")


@pytest.mark.parametrize(
    ("text", "option"),
    [
        (
            _hit("PerzynaPlasticFlowRate", "reference_stress = 0\n    exponent = 2"),
            "reference_stress",
        ),
        (
            _hit("OlevskySinteringStress", "surface_tension = 1\n    particle_radius = -1"),
            "particle_radius",
        ),
        (_hit("PowerLawIsotropicHardeningStaticRecovery", "tau = 0\n    n = 2"), "tau"),
        (_hit("PowerLawKinematicHardeningStaticRecovery", "tau = -2\n    n = 2"), "tau"),
        (_hit("VolumeChangeEigenstrain", "reference_volume = 0"), "reference_volume"),
        (
            _hit("PerzynaPlasticFlowRate", "reference_stress = inf\n    exponent = 2"),
            "reference_stress",
        ),
        (_hit("PowerLawIsotropicHardeningStaticRecovery", "tau = nan\n    n = 2"), "tau"),
    ],
)
def test_nonpositive_parameters(text: str, option: str) -> None:
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'.*positive and finite"):
        load_string(text).get_model("model")


def test_annealing_keeps_sub_batch() -> None:
    """Per-site temperatures (one sub-batch axis) select the stage site by site."""
    from neml2.tensors import SR2, Scalar

    model = load_string(
        _hit("SR2TwoStageThermalAnnealing", "T1 = 400\n    T2 = 600\n    tau = 5")
    ).get_model("model")
    rate = SR2(torch.ones(2, 3, 6, dtype=torch.float64), sub_batch_ndim=1)
    base = SR2(torch.full((2, 3, 6), 10.0, dtype=torch.float64), sub_batch_ndim=1)
    temp = Scalar(torch.tensor([[300.0, 500.0, 700.0]] * 2, dtype=torch.float64), sub_batch_ndim=1)
    y = model(rate, base, temp)
    assert y.sub_batch_ndim == 1
    want = torch.tensor([1.0, 0.0, -2.0], dtype=torch.float64)[:, None].expand(2, 3, 6)
    torch.testing.assert_close(y.data, want)


def _iso_recovery(h: torch.Tensor, tau: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return -(torch.pow(h.abs() / tau, n - 1.0) * h / tau)


@pytest.mark.parametrize("n", [1.0, 1.5, 2.0, 2.5, 3.0])
def test_iso_recovery_derivatives_at_zero(n: float) -> None:
    """Partials of :math:`\\dot h = -(|h|/\\tau)^{n-1} h/\\tau` are finite at :math:`h = 0` (where an
    implicit solve from zero hardening starts) and equal the limits :math:`-n\\,0^{n-1}/\\tau`
    (:math:`-1/\\tau` for :math:`n = 1`, else 0), 0 (:math:`\\tau`) and 0 (:math:`n`); off zero
    they equal autograd of the formula, and the value is the formula's to the last bit."""
    from neml2.tensors import Scalar

    model = load_string(
        _hit("PowerLawIsotropicHardeningStaticRecovery", "tau = 'tau'\n    n = 'n'")
    ).get_model("model")
    f64 = torch.float64
    h = torch.tensor([0.0, -0.0, 0.7, -1.3], dtype=f64)
    tau = torch.tensor([2.0, 5.0, 3.0, 4.0], dtype=f64)
    nn = torch.full((4,), n, dtype=f64)
    out, jac = model.jacobian(
        {"isotropic_hardening": Scalar(h), "tau": Scalar(tau), "n": Scalar(nn)}
    )
    names = ("isotropic_hardening", "tau", "n")
    got = {k: jac["isotropic_hardening_rate"][k].data.detach() for k in names}
    for k in names:
        assert torch.isfinite(got[k]).all(), (k, got[k])
    zero = torch.zeros(2, dtype=f64)
    want_h = -1.0 / tau[:2] if n == 1.0 else zero
    torch.testing.assert_close(got["isotropic_hardening"][:2], want_h, rtol=0, atol=0)
    torch.testing.assert_close(got["tau"][:2], zero, rtol=0, atol=0)
    torch.testing.assert_close(got["n"][:2], zero, rtol=0, atol=0)
    ref = torch.autograd.functional.jacobian(_iso_recovery, (h[2:], tau[2:], nn[2:]))  # type: ignore[no-untyped-call]
    for k, r in zip(names, ref, strict=True):
        torch.testing.assert_close(got[k][2:], r.diagonal(), rtol=1e-12, atol=0)
    torch.testing.assert_close(
        out["isotropic_hardening_rate"].data.detach(), _iso_recovery(h, tau, nn), rtol=0, atol=0
    )
