"""Phase-field fracture leaves: crack geometric functions, degradation functions and the
linear isotropic strain energy density (values against numpy formulas, derivatives by the
harness, construction checks)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(17)


def _hit(type_: str, opts: str = "") -> str:
    return f"""
[Models]
  [model]
    type = {type_}
    {opts}
  []
[]
"""


# ---------------------------------------------------------------- independent numpy formulas
def _power(d: np.ndarray, p: np.ndarray | float, eta: float) -> np.ndarray:
    return (1.0 - d) ** p * (1.0 - eta) + eta


def _rational(d: np.ndarray, p: float, b1: float, b2: float, b3: float, eta: float) -> np.ndarray:
    f = (1.0 - d) ** p
    q = b1 * d + b1 * b2 * d**2 + b1 * b2 * b3 * d**3
    return f / (f + q) * (1.0 - eta) + eta


def _full(m: np.ndarray) -> np.ndarray:
    """3x3 strain from its Mandel vector (11, 22, 33, sqrt2 23, sqrt2 13, sqrt2 12)."""
    r = 1.0 / np.sqrt(2.0)
    e = np.empty((*m.shape[:-1], 3, 3))
    e[..., 0, 0], e[..., 1, 1], e[..., 2, 2] = m[..., 0], m[..., 1], m[..., 2]
    e[..., 1, 2] = e[..., 2, 1] = r * m[..., 3]
    e[..., 0, 2] = e[..., 2, 0] = r * m[..., 4]
    e[..., 0, 1] = e[..., 1, 0] = r * m[..., 5]
    return e


def _energy(m: np.ndarray, K: float, G: float, split: str) -> dict[str, np.ndarray]:
    e = _full(m)
    t = np.trace(e, axis1=-2, axis2=-1)
    s = e - t[..., None, None] / 3.0 * np.eye(3)
    dd = G * np.sum(s * s, axis=(-2, -1))
    if split == "NONE":
        return {"active_strain_energy_density": 0.5 * K * t**2 + dd,
                "inactive_strain_energy_density": np.zeros_like(t)}  # fmt: skip
    tp, tn = np.maximum(t, 0.0), np.minimum(t, 0.0)
    return {"active_strain_energy_density": 0.5 * K * tp**2 + dd,
            "inactive_strain_energy_density": 0.5 * K * tn**2}  # fmt: skip


E, NU = 200.0, 0.3
K_E, G_E = E / (3 * (1 - 2 * NU)), E / (2 * (1 + NU))
PHASE = {"phase": np.array([0.0, 0.15, 0.4, 0.62, 0.85, 0.97])}
PHASE_2D = {"phase": RNG.uniform(0.05, 0.95, size=(4, 3))}


def _strains(n: int) -> np.ndarray:
    """Random strains with |tr| bounded away from 0 (both signs), plus shear."""
    m = RNG.uniform(-2e-3, 2e-3, size=(n, 6))
    t = np.where(np.arange(n) % 2 == 0, 1.0, -1.0) * RNG.uniform(2e-3, 5e-3, size=n)
    m[:, :3] += (t - m[:, :3].sum(-1))[:, None] / 3.0
    return m


STRAIN = {"strain": _strains(7)}
ELASTIC = "coefficients = '200 0.3'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"

CASES = [
    ModelCase("pff-at1", _hit("CrackGeometricFunctionAT1", "phase = d\n    crack = a"),
              {"d": PHASE["phase"]}, lambda x: {"a": x["d"]}),
    ModelCase("pff-at2", _hit("CrackGeometricFunctionAT2"), PHASE,
              lambda x: {"crack": x["phase"] ** 2}),
    ModelCase("pff-power-2", _hit("PowerDegradationFunction", "power = 2"), PHASE,
              lambda x: {"degradation": _power(x["phase"], 2.0, 0.0)}),
    ModelCase("pff-power-2.5-eta", _hit("PowerDegradationFunction", "power = 2.5\n    eta = 0.1"),
              PHASE, lambda x: {"degradation": _power(x["phase"], 2.5, 0.1)}),
    ModelCase("pff-rational",
              _hit("RationalDegradationFunction",
                   "power = 2\n    b1 = 2.5\n    b2 = -0.5\n    b3 = 0.7\n    eta = 0.05"),
              PHASE, lambda x: {"degradation": _rational(x["phase"], 2, 2.5, -0.5, 0.7, 0.05)}),
    ModelCase("pff-rational-p3",
              _hit("RationalDegradationFunction",
                   "power = 3\n    b1 = 1.2\n    b2 = 2\n    b3 = 0"),
              PHASE, lambda x: {"degradation": _rational(x["phase"], 3, 1.2, 2, 0, 0)}),
    ModelCase("pff-energy-none", _hit("LinearIsotropicStrainEnergyDensity", ELASTIC), STRAIN,
              lambda x: _energy(x["strain"], K_E, G_E, "NONE")),
    ModelCase("pff-energy-voldev",
              _hit("LinearIsotropicStrainEnergyDensity",
                   "coefficients = '100 40'\n    coefficient_types = 'BULK_MODULUS SHEAR_MODULUS'"
                   "\n    decomposition = VOLDEV\n    strain = eps"
                   "\n    active_strain_energy_density = psi_a"
                   "\n    inactive_strain_energy_density = psi_i"),
              {"eps": STRAIN["strain"]},
              lambda x: {"psi_a": _energy(x["eps"], 100, 40, "VOLDEV")[
                  "active_strain_energy_density"],
                  "psi_i": _energy(x["eps"], 100, 40, "VOLDEV")[
                      "inactive_strain_energy_density"]}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_pff_models(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


# a batched parameter (power of batch (3,) next to phase of batch (4, 3)): kept out of CASES,
# whose batch-shape sweep assumes unbatched parameters
BATCHED_POWER = ModelCase(
    "pff-power-batched",
    _hit("PowerDegradationFunction", "power = '2 2.5 3'"),
    PHASE_2D,
    lambda x: {"degradation": _power(x["phase"], np.array([2, 2.5, 3]), 0)},
)


def test_pff_batched_power(dtype: torch.dtype, device: torch.device) -> None:
    check_model(BATCHED_POWER, dtype=dtype, device=device)


def test_energy_stores_bulk_and_shear_moduli() -> None:
    m = load_string(_hit("LinearIsotropicStrainEnergyDensity", ELASTIC)).get_model("model")
    params = {k: float(v.detach()) for k, v in m.named_parameters()}
    assert params == pytest.approx({"K": K_E, "G": G_E}, rel=1e-14)


def test_degradation_stores_power_as_p() -> None:
    m = load_string(_hit("PowerDegradationFunction", "power = 2")).get_model("model")
    assert [k for k, _ in m.named_parameters()] == ["p"]


@pytest.mark.parametrize(
    ("type_", "opts", "option"),
    [
        ("PowerDegradationFunction", "power = 0", "power"),
        ("PowerDegradationFunction", "power = -1", "power"),
        ("PowerDegradationFunction", "power = 2\n    eta = 1", "eta"),
        ("PowerDegradationFunction", "power = 2\n    eta = -0.1", "eta"),
        ("RationalDegradationFunction", "power = 0\n    b1 = 1\n    b2 = 1\n    b3 = 1", "power"),
        ("RationalDegradationFunction", "power = 2\n    b1 = 0\n    b2 = 1\n    b3 = 1", "b1"),
        ("RationalDegradationFunction",
         "power = 2\n    b1 = 1\n    b2 = 1\n    b3 = 1\n    eta = 1.5", "eta"),
        ("LinearIsotropicStrainEnergyDensity", ELASTIC + "\n    decomposition = SPECTRAL",
         "decomposition"),
        ("LinearIsotropicStrainEnergyDensity", ELASTIC + "\n    decomposition = FOO",
         "decomposition"),
        ("LinearIsotropicStrainEnergyDensity",
         "coefficients = 'E 0.3'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'",
         "coefficients"),
        ("LinearIsotropicStrainEnergyDensity",
         "coefficients = '200 0.6'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'",
         "coefficients"),
        ("LinearIsotropicStrainEnergyDensity",
         "coefficients = '200 0.3 1'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'",
         "coefficient_types"),
    ],
)  # fmt: skip
def test_bad_input(type_: str, opts: str, option: str) -> None:
    f = load_string(_hit(type_, opts))
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        f.get_model("model")
