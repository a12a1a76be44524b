"""KWN precipitation leaf models: values against numpy formulas, Jacobians, second order."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(31)
N = 7


def u(lo: float, hi: float, *shape: int) -> np.ndarray:
    """Uniform samples (shape defaults to the batch ``(N,)``)."""
    return RNG.uniform(lo, hi, shape or (N,))


def hit(body: str, tensors: str = "") -> str:
    """A ``[Models]`` block ``model`` with ``body`` (plus optional ``[Tensors]``)."""
    lines = "\n".join("    " + ln.strip() for ln in body.strip().splitlines())
    return f"{tensors}\n[Models]\n  [model]\n{lines}\n  []\n[]\n"


# ----------------------------------------------------------------------------- thermodynamics
CG = "type = ChemicalGibbsFreeEnergyDifference\nconcentration_differences = 'dx1 dx2'\n"
IS = "type = IdealSolutionVolumetricDrivingForce\ncurrent_concentrations = 'x1 x2'\n"
CC = "type = CurrentConcentration\nprecipitate_volume_fractions = 'f1 f2'\n"

THERMO = [
    ModelCase("kwn-chemical-gibbs",
              hit(CG + "chemical_potentials = '1.5 -2.0'\nequilibrium_potentials = '0.5 0.7'"),
              {"dx1": u(-1, 1), "dx2": u(-1, 1, 1)},
              lambda x: {"chemical_gibbs_free_energy": 1.0 * x["dx1"] - 2.7 * x["dx2"]}),
    ModelCase("kwn-chemical-gibbs-promoted",
              hit(CG + "chemical_potentials = 'mu1 -2.0'\nequilibrium_potentials = '0.5 mu1'"),
              {"dx1": u(-1, 1), "dx2": u(-1, 1), "mu1": u(-2, 2)},
              lambda x: {"chemical_gibbs_free_energy": (x["mu1"] - 0.5) * x["dx1"]
                         + (-2.0 - x["mu1"]) * x["dx2"]}),
    ModelCase("kwn-ideal-solution",
              hit(IS + "gas_constant = 8.314\nequilibrium_concentrations = '0.01 0.02'\n"
                  "weights = '2 3'"),
              {"temperature": u(500, 900), "x1": u(0.005, 0.05), "x2": 0.03},
              lambda x: {"driving_force": 8.314 * x["temperature"] * (
                  2 * np.log(x["x1"] / 0.01) + 3 * np.log(x["x2"] / 0.02))},
              fd_rtol=1e-5),
    ModelCase("kwn-ideal-solution-promoted",
              hit(IS + "gas_constant = 2.0\nequilibrium_concentrations = 'xe1 0.4'\n"
                  "weights = 1.5"),
              {"temperature": u(0.5, 2), "x1": u(0.2, 0.9), "x2": u(0.2, 0.9, 1),
               "xe1": u(0.2, 0.9)},
              lambda x: {"driving_force": 2.0 * x["temperature"] * 1.5 * (
                  np.log(x["x1"] / x["xe1"]) + np.log(x["x2"] / 0.4))}),
    ModelCase("kwn-current-concentration",
              hit(CC + "initial_concentration = 0.1\nprecipitate_concentrations = '0.5 0.8'"),
              {"f1": u(0, 0.3), "f2": u(0, 0.3, 1)},
              lambda x: {"current_concentration": (0.1 - 0.5 * x["f1"] - 0.8 * x["f2"])
                         / (1 - x["f1"] - x["f2"])}),
    ModelCase("kwn-current-concentration-promoted",
              hit(CC + "initial_concentration = x0\nprecipitate_concentrations = 'xp1 xp2'"),
              {"f1": u(0, 0.3), "f2": u(0, 0.3), "x0": u(0.05, 0.2), "xp1": u(0.3, 0.9),
               "xp2": u(0.3, 0.9)},
              lambda x: {"current_concentration": (x["x0"] - x["xp1"] * x["f1"]
                                                   - x["xp2"] * x["f2"])
                         / (1 - x["f1"] - x["f2"])}),
]  # fmt: skip

# ----------------------------------------------------------------------------- nucleation
NB = "type = NucleationBarrierAndCriticalRadius\nmolar_volume = 0.7\n"
ZF = "type = ZeldovichFactor\nmolar_volume = 0.7\navogadro_number = 3.0\nboltzmann_constant = 0.5\n"
KF = "type = KineticFactor\n"
NF = "type = NucleationFluxMagnitude\nboltzmann_constant = 0.5\n"


def _barrier(g: np.ndarray | float, dg: np.ndarray | float) -> dict[str, np.ndarray]:
    return {"nucleation_barrier": np.asarray(16 * np.pi / 3 * g**3 * 0.7**2 / dg**2),
            "critical_radius": np.asarray(2 * g * 0.7 / dg)}  # fmt: skip


def _zeldovich(r: np.ndarray, T: np.ndarray, g: np.ndarray | float) -> dict[str, np.ndarray]:
    return {"zeldovich_factor": 0.7 / (2 * np.pi * 3.0 * r**2) * np.sqrt(g / (0.5 * T))}


NUCLEATION = [
    ModelCase("kwn-nucleation-barrier",
              hit(NB + "surface_energy = 0.3\ntotal_gibbs_free_energy_difference = 1.7"),
              {}, lambda x: _barrier(0.3, 1.7)),
    ModelCase("kwn-nucleation-barrier-promoted",
              hit(NB + "surface_energy = g\ntotal_gibbs_free_energy_difference = dg"),
              {"g": u(0.2, 1.0), "dg": u(0.5, 2.0, 1)}, lambda x: _barrier(x["g"], x["dg"])),
    ModelCase("kwn-zeldovich", hit(ZF + "surface_energy = 0.3"),
              {"critical_radius": u(0.5, 2), "temperature": u(0.5, 2, 1)},
              lambda x: _zeldovich(x["critical_radius"], x["temperature"], 0.3)),
    ModelCase("kwn-zeldovich-promoted", hit(ZF + "surface_energy = g"),
              {"critical_radius": u(0.5, 2), "temperature": u(0.5, 2), "g": u(0.2, 1)},
              lambda x: _zeldovich(x["critical_radius"], x["temperature"], x["g"])),
    ModelCase("kwn-kinetic-factor", hit(KF + "molar_volume = 0.7\navogadro_number = 3.0"),
              {"critical_radius": u(0.5, 2), "projected_diffusivity_sum": u(0.5, 2, 1)},
              lambda x: {"kinetic_factor": 4 * np.pi * 3.0 ** (4 / 3) * x["critical_radius"] ** 2
                         / (0.7 ** (4 / 3) * x["projected_diffusivity_sum"])}),
    ModelCase("kwn-kinetic-factor-promoted", hit(KF + "molar_volume = vm\navogadro_number = na"),
              {"critical_radius": u(0.5, 2), "projected_diffusivity_sum": u(0.5, 2),
               "vm": u(0.5, 2), "na": u(0.5, 2)},
              lambda x: {"kinetic_factor": 4 * np.pi * x["na"] ** (4 / 3)
                         * x["critical_radius"] ** 2
                         / (x["vm"] ** (4 / 3) * x["projected_diffusivity_sum"])}),
    ModelCase("kwn-nucleation-flux", hit(NF + "nucleation_site_density = 2.5"),
              {"zeldovich_factor": u(0.1, 1), "kinetic_factor": u(0.5, 2, 1),
               "nucleation_barrier": u(0.1, 1), "temperature": u(0.5, 2)},
              lambda x: {"nucleation_flux_magnitude": x["zeldovich_factor"] * x["kinetic_factor"]
                         * 2.5 * np.exp(-x["nucleation_barrier"] / (0.5 * x["temperature"]))}),
    ModelCase("kwn-nucleation-flux-promoted", hit(NF + "nucleation_site_density = n0"),
              {"zeldovich_factor": u(0.1, 1), "kinetic_factor": u(0.5, 2),
               "nucleation_barrier": u(0.1, 1), "temperature": u(0.5, 2), "n0": u(1, 3)},
              lambda x: {"nucleation_flux_magnitude": x["zeldovich_factor"] * x["kinetic_factor"]
                         * x["n0"] * np.exp(-x["nucleation_barrier"] / (0.5 * x["temperature"]))}),
]  # fmt: skip

# ----------------------------------------------------------------------------- growth
PD = "type = ProjectedDiffusivitySum\nfar_field_concentrations = 'x1 x2'\n"
SF = "type = SFFKPrecipitationGrowthRate\n"
RL = "type = RateLimitedPrecipitateGrowthRate\n"

GROWTH = [
    ModelCase("kwn-projected-diffusivity",
              hit(PD + "concentration_differences = '0.1 0.2'\ndiffusivities = '1.5 2.0'"),
              {"x1": u(0.05, 0.5), "x2": u(0.05, 0.5, 1)},
              lambda x: {"projected_diffusivity_sum": 0.01 / (1.5 * x["x1"])
                         + 0.04 / (2.0 * x["x2"])}),
    ModelCase("kwn-projected-diffusivity-promoted",
              hit(PD + "concentration_differences = 'dx1 0.2'\ndiffusivities = '1.5 D2'"),
              {"x1": u(0.2, 0.9), "x2": u(0.2, 0.9), "dx1": u(-1, 1), "D2": u(0.5, 2)},
              lambda x: {"projected_diffusivity_sum": x["dx1"] ** 2 / (1.5 * x["x1"])
                         + 0.04 / (x["D2"] * x["x2"])}),
    ModelCase("kwn-sffk-growth",
              hit(SF + "radius = 0.8\ngibbs_free_energy_difference = -1.2\ngas_constant = 2.0"),
              {"projected_diffusivity_sum": u(0.5, 2), "temperature": u(0.5, 2, 1)},
              lambda x: {"growth_rate": -1.2 / (0.8 * 2.0 * x["temperature"]
                                                * x["projected_diffusivity_sum"])}),
    ModelCase("kwn-sffk-growth-promoted",
              hit(SF + "radius = R\ngibbs_free_energy_difference = dg\ngas_constant = rg"),
              {"projected_diffusivity_sum": u(0.5, 2), "temperature": u(0.5, 2),
               "R": u(0.5, 2), "dg": u(-2, 2), "rg": u(0.5, 2)},
              lambda x: {"growth_rate": x["dg"] / (x["R"] * x["rg"] * x["temperature"]
                                                   * x["projected_diffusivity_sum"])}),
    ModelCase("kwn-rate-limited-growth",
              hit(RL + "radius = 0.8\nequilibrium_concentration = 0.1\n"
                  "concentration_difference = 0.4\ndiffusivity = 1.3"),
              {"current_concentration": u(0, 0.3)},
              lambda x: {"growth_rate": 1.3 * (x["current_concentration"] - 0.1) / (0.8 * 0.4)}),
    ModelCase("kwn-rate-limited-growth-promoted",
              hit(RL + "radius = R\nequilibrium_concentration = xe\n"
                  "concentration_difference = dx\ndiffusivity = D"),
              {"current_concentration": u(0, 0.3), "R": u(0.5, 2), "xe": u(0, 0.3, 1),
               "dx": u(0.2, 0.8), "D": u(0.5, 2)},
              lambda x: {"growth_rate": x["D"] * (x["current_concentration"] - x["xe"])
                         / (x["R"] * x["dx"])}),
]  # fmt: skip

# ----------------------------------------------------------------------------- volume fraction
NBIN = 5
RBINS = np.linspace(0.2, 1.0, NBIN)
RTENSOR = f"""
[Tensors]
  [rbins]
    type = Python
    expr = 'Scalar(torch.tensor({RBINS.tolist()}, dtype=torch.float64)).sub_batch.retag(1)'
  []
[]
"""
PV = "type = PrecipitateVolumeFraction\n"


def _vf(n: np.ndarray, r: np.ndarray | float) -> dict[str, np.ndarray]:
    return {"volume_fraction": (4 * np.pi / 3 * np.asarray(r) ** 3 * n).sum(-1)}


VOLUME = [
    ModelCase("kwn-volume-fraction", hit(PV + "radius = rbins", RTENSOR),
              {"number_density": u(0, 2, N, NBIN)}, lambda x: _vf(x["number_density"], RBINS),
              sub_batch={"number_density": 1}),
    ModelCase("kwn-volume-fraction-scalar-radius", hit(PV + "radius = 0.6"),
              {"number_density": u(0, 2, 1, NBIN)}, lambda x: _vf(x["number_density"], 0.6),
              sub_batch={"number_density": 1}),
    ModelCase("kwn-volume-fraction-promoted", hit(PV + "radius = R"),
              {"number_density": u(0, 2, N, NBIN), "R": u(0.2, 1, NBIN)},
              lambda x: _vf(x["number_density"], x["R"]),
              sub_batch={"number_density": 1, "R": 1}),
]  # fmt: skip

CASES = THERMO + NUCLEATION + GROWTH + VOLUME


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_kwn_model(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


# ----------------------------------------------------------------------------- bad inputs
BAD = [
    ("chemical-gibbs-length",
     CG + "chemical_potentials = '1 2 3'\nequilibrium_potentials = '1 2'", "chemical_potentials"),
    ("chemical-gibbs-empty",
     "type = ChemicalGibbsFreeEnergyDifference\nconcentration_differences = ''\n"
     "chemical_potentials = ''\nequilibrium_potentials = ''", "concentration_differences"),
    ("current-concentration-length",
     CC + "initial_concentration = 0.1\nprecipitate_concentrations = '0.5'",
     "precipitate_concentrations"),
    ("ideal-solution-length",
     IS + "gas_constant = 8.3\nequilibrium_concentrations = '0.1'", "equilibrium_concentrations"),
    ("ideal-solution-weights",
     IS + "gas_constant = 8.3\nequilibrium_concentrations = '0.1 0.2'\nweights = '1 2 3'",
     "weights"),
    ("projected-diffusivity-length",
     PD + "concentration_differences = '0.1'\ndiffusivities = '1 2'",
     "concentration_differences"),
    ("projected-diffusivity-negative",
     PD + "concentration_differences = '0.1 0.1'\ndiffusivities = '-1 2'", "diffusivities"),
    ("projected-diffusivity-zero",
     PD + "concentration_differences = '0.1 0.1'\ndiffusivities = '1 0'", "diffusivities"),
    ("rate-limited-negative-diffusivity",
     RL + "radius = 1\nequilibrium_concentration = 0.1\nconcentration_difference = 0.2\n"
     "diffusivity = -1", "diffusivity"),
    ("barrier-zero-surface-energy",
     NB + "surface_energy = 0\ntotal_gibbs_free_energy_difference = 1", "surface_energy"),
    ("barrier-negative-molar-volume",
     "type = NucleationBarrierAndCriticalRadius\nmolar_volume = -1\nsurface_energy = 1\n"
     "total_gibbs_free_energy_difference = 1", "molar_volume"),
    ("zeldovich-negative-surface-energy", ZF + "surface_energy = -0.3", "surface_energy"),
    ("kinetic-zero-molar-volume", KF + "molar_volume = 0\navogadro_number = 3", "molar_volume"),
    ("volume-fraction-negative-radius", PV + "radius = -1", "radius"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "option"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_kwn_bad_input(body: str, option: str) -> None:
    f = load_string(hit(body))
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        f.get_model("model")


def test_kwn_promoted_parameters_are_not_checked() -> None:
    """A promoted surface energy / diffusivity is a variable: no construction-time check."""
    f = load_string(hit(ZF + "surface_energy = g"))
    assert "g" in f.get_model("model").input_spec


def test_kwn_volume_fraction_needs_bins() -> None:
    model = load_string(hit(PV + "radius = 0.5")).get_model("model")
    with pytest.raises(ValueError, match=r"'number_density'.*sub-batch"):
        model.value({"number_density": torch.ones(3, dtype=torch.float64)})
