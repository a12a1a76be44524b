"""Crystal-plasticity leaves: values against numpy formulas, derivatives (autograd + FD)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from cp_reference import axial, crystal_hit, full, mandel, mrp_matrix, random_mrp, skew_matrix
from model_hit import model_hit

from neml2.data import CubicCrystal
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(28)
N = 3
FCC = crystal_hit("1 1 0", "1 1 1")
GEOM = CubicCrystal.create(1.5, torch.tensor([1, 1, 0]), torch.tensor([1, 1, 1]))
DIRS, NORMALS = GEOM.directions.numpy(), GEOM.normals.numpy()
NSLIP = len(DIRS)
A_I = np.einsum("si,sj->sij", DIRS, NORMALS)  # d_i ⊗ n_i


M6 = mandel(0.5 * (A_I + np.swapaxes(A_I, 1, 2)))  # Schmid tensors, Mandel rows
C_CUBIC = np.zeros((6, 6))
C_CUBIC[:3, :3] = 130e3
C_CUBIC[range(6), range(6)] = [200e3] * 3 + [2 * 100e3] * 3
C_CUBIC[0, 3] = C_CUBIC[3, 0] = 7e3  # not cubic: the coupling must still not depend on q
C_TENSOR = ("[Tensors]\n  [C]\n    type = Python\n    expr = 'SSR4(torch.tensor("
            + repr(C_CUBIC.tolist()) + ", dtype=torch.float64))'\n  []\n[]\n")  # fmt: skip


def hit(type_: str, options: str = "") -> str:
    return FCC + model_hit(type_, options)


def rotations(n: int = N) -> np.ndarray:
    return mrp_matrix(random_mrp(RNG, n))


def sym6(n: int = N, scale: float = 1.0) -> np.ndarray:
    return scale * RNG.normal(size=(n, 6))


def per_slip(n: int = N, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return RNG.uniform(lo, hi, (n, NSLIP))


def rotated_sum(R: np.ndarray, g: np.ndarray, T: np.ndarray) -> np.ndarray:
    """R (Σ_i g_i T_i) Rᵀ."""
    S = np.einsum("bs,sij->bij", g, T)
    out: np.ndarray = R @ S @ np.swapaxes(R, -1, -2)
    return out


def rotated_each(R: np.ndarray) -> np.ndarray:
    """R M_i Rᵀ for every Schmid tensor M_i = sym(d_i ⊗ n_i): (B, nslip, 3, 3)."""
    M = 0.5 * (A_I + np.swapaxes(A_I, 1, 2))
    out: np.ndarray = np.einsum("bik,skl,bjl->bsij", R, M, R)
    return out


def power_law(tau: np.ndarray, s: np.ndarray, g0: Any, n: Any) -> np.ndarray:
    """γ̇ = γ0 |τ/τ̂|^(n−1) τ/τ̂ (``g0``, ``n``: numbers or per-point arrays)."""
    r = tau / s
    out: np.ndarray = g0 * np.abs(r) ** (n - 1) * r
    return out


# orientations on both sides of the |q|² = 1 switch of FixOrientation
Q_FIX = np.concatenate([random_mrp(RNG, 2), 1.6 * random_mrp(RNG, 2) / 0.6])

CASES = [
    ModelCase("resolved-shear", hit("ResolvedShear"),
              {"stress": sym6(scale=100.0), "orientation_matrix": rotations()},
              lambda x: {"resolved_shears": np.einsum(
                  "bsij,bij->bs", rotated_each(x["orientation_matrix"]), full(x["stress"]))}),
    ModelCase("plastic-deformation-rate", hit("PlasticDeformationRate"),
              {"orientation_matrix": rotations(), "slip_rates": per_slip()},
              lambda x: {"plastic_deformation_rate": mandel(
                  rotated_sum(x["orientation_matrix"], x["slip_rates"], A_I))},
              sub_batch={"slip_rates": 1}),
    ModelCase("plastic-vorticity", hit("PlasticVorticity"),
              {"orientation_matrix": rotations(), "slip_rates": per_slip()},
              lambda x: {"plastic_vorticity": axial(
                  rotated_sum(x["orientation_matrix"], x["slip_rates"], A_I))},
              sub_batch={"slip_rates": 1}),
    ModelCase("plastic-spatial-velocity-gradient", hit("PlasticSpatialVelocityGradient"),
              {"orientation_matrix": rotations(), "slip_rates": per_slip()},
              lambda x: {"plastic_spatial_velocity_gradient":
                         rotated_sum(x["orientation_matrix"], x["slip_rates"], A_I)},
              sub_batch={"slip_rates": 1}),
    ModelCase("elastic-strain-rate", model_hit("ElasticStrainRate"),
              {"elastic_strain": sym6(scale=1e-2), "deformation_rate": sym6(),
               "vorticity": RNG.normal(size=(N, 3)), "plastic_deformation_rate": sym6()},
              lambda x: {"elastic_strain_rate": x["deformation_rate"] - x["plastic_deformation_rate"]
                         + mandel(skew_matrix(x["vorticity"]) @ full(x["elastic_strain"])
                                  - full(x["elastic_strain"]) @ skew_matrix(x["vorticity"]))}),
    ModelCase("orientation-rate", model_hit("OrientationRate"),
              {"elastic_strain": sym6(scale=1e-2), "vorticity": RNG.normal(size=(N, 3)),
               "plastic_deformation_rate": sym6(), "plastic_vorticity": RNG.normal(size=(N, 3))},
              lambda x: {"orientation_rate": x["vorticity"] - x["plastic_vorticity"]
                         + axial(full(x["plastic_deformation_rate"]) @ full(x["elastic_strain"])
                                 - full(x["elastic_strain"]) @ full(x["plastic_deformation_rate"]))}),
    ModelCase("power-law-slip-rule", model_hit("PowerLawSlipRule", "n = 5.5\n    gamma0 = 2e-3"),
              {"resolved_shears": per_slip(lo=-80, hi=80), "slip_strengths": per_slip(lo=40, hi=60)},
              lambda x: {"slip_rates": power_law(x["resolved_shears"], x["slip_strengths"], 2e-3, 5.5)},
              sub_batch={"resolved_shears": 1, "slip_strengths": 1}),
    ModelCase("power-law-slip-rule-promoted",
              model_hit("PowerLawSlipRule", "n = 'nn'\n    gamma0 = 'g0'"),
              {"resolved_shears": per_slip(lo=-80, hi=80), "slip_strengths": per_slip(lo=40, hi=60),
               "nn": RNG.uniform(3, 8, N), "g0": RNG.uniform(1e-3, 1e-2, N)},
              lambda x: {"slip_rates": power_law(x["resolved_shears"], x["slip_strengths"],
                                                 x["g0"][:, None], x["nn"][:, None])},
              sub_batch={"resolved_shears": 1, "slip_strengths": 1}),
    ModelCase("sum-slip-rates", model_hit("SumSlipRates"), {"slip_rates": per_slip()},
              lambda x: {"sum_slip_rates": np.abs(x["slip_rates"]).sum(-1)},
              sub_batch={"slip_rates": 1}),
    ModelCase("single-slip-strength-map", hit("SingleSlipStrengthMap", "constant_strength = 30"),
              {"slip_hardening": RNG.uniform(0, 20, N)},
              lambda x: {"slip_strengths": np.repeat(x["slip_hardening"][:, None] + 30, NSLIP, 1)}),
    ModelCase("single-slip-strength-map-promoted",
              hit("SingleSlipStrengthMap", "constant_strength = 'tau0'"),
              {"slip_hardening": RNG.uniform(0, 20, N), "tau0": RNG.uniform(10, 40, N)},
              lambda x: {"slip_strengths": np.repeat((x["slip_hardening"] + x["tau0"])[:, None],
                                                     NSLIP, 1)}),
    ModelCase("dislocation-obstacle-strength-map",
              model_hit("DislocationObstacleStrengthMap",
                        "constant_strength = 20\n    alpha = 0.3\n    mu = 5e4\n    b = 2.5e-7"),
              {"dislocation_density": per_slip(lo=1e10, hi=1e12)},
              lambda x: {"slip_strengths": 20 + 0.3 * 5e4 * 2.5e-7 * np.sqrt(x["dislocation_density"])},
              sub_batch={"dislocation_density": 1}, fd_rtol=1e-5),
    ModelCase("linear-single-slip-hardening",
              model_hit("LinearSingleSlipHardeningRule", "hardening_slope = 120"),
              {"slip_hardening": RNG.uniform(0, 20, N), "sum_slip_rates": RNG.uniform(0, 1e-2, N)},
              lambda x: {"slip_hardening_rate": 120 * x["sum_slip_rates"]}),
    ModelCase("voce-single-slip-hardening",
              model_hit("VoceSingleSlipHardeningRule",
                        "initial_slope = 500\n    saturated_hardening = 50"),
              {"slip_hardening": RNG.uniform(0, 20, N), "sum_slip_rates": RNG.uniform(0, 1e-2, N)},
              lambda x: {"slip_hardening_rate":
                         500 * (1 - x["slip_hardening"] / 50) * x["sum_slip_rates"]}),
    ModelCase("per-slip-forest-dislocation-evolution",
              model_hit("PerSlipForestDislocationEvolution", "k1 = 3e6\n    k2 = 2.5"),
              {"dislocation_density": per_slip(lo=1e10, hi=1e12), "slip_rates": per_slip()},
              lambda x: {"dislocation_density_rate": (3e6 * np.sqrt(x["dislocation_density"])
                         - 2.5 * x["dislocation_density"]) * np.abs(x["slip_rates"])},
              sub_batch={"dislocation_density": 1, "slip_rates": 1}, fd_rtol=1e-5),
    ModelCase("fix-orientation", model_hit("FixOrientation", "input = 'q'\n    output = 'p'"),
              {"q": Q_FIX},
              lambda x: {"p": np.where((np.sum(x["q"] ** 2, -1) < 1)[:, None], x["q"],
                                       -x["q"] / np.sum(x["q"] ** 2, -1)[:, None])}),
    ModelCase("slip-system-elastic-interaction",
              FCC + C_TENSOR + model_hit("SlipSystemElasticInteraction", "elastic_stiffness_tensor = 'C'"),
              {"orientation": random_mrp(RNG, N), "t": np.array([1.0, 2.0, 3.5]), "t~1": np.array([0.5, 1.0, 3.0])},
              lambda x: {"coupling": (x["t"] - x["t~1"])[:, None, None] * (M6 @ C_CUBIC @ M6.T)}),
    ModelCase("slip-system-elastic-interaction-promoted",
              FCC + model_hit("SlipSystemElasticInteraction", "elastic_stiffness_tensor = 'CC'"),
              {"orientation": random_mrp(RNG, N), "t": np.array([1.0, 2.0, 3.5]), "t~1": np.array([0.5, 1.0, 3.0]),
               "CC": C_CUBIC + RNG.normal(size=(N, 6, 6)) * 1e3},
              lambda x: {"coupling": (x["t"] - x["t~1"])[:, None, None]
                         * np.einsum("ia,nab,jb->nij", M6, x["CC"], M6)},
              fd_eps=1e-2),  # linear in C: a large step has no truncation error, less roundoff
    ModelCase("cp-strain-predictor",
              model_hit("CrystalPlasticityStrainPredictor", "scale = 0.05"),
              {"deformation_rate": sym6(), "t": np.array([1.0, 2.0, 3.0]),
               "t~1": np.array([0.5, 1.5, 2.0]),
               "elastic_strain~1": np.stack([np.zeros(6), 1e-4 * np.ones(6), 1e-2 * np.ones(6)])},
              lambda x: {"elastic_strain": x["elastic_strain~1"] + np.where(
                  (np.linalg.norm(x["elastic_strain~1"], axis=-1) < 1e-3)[:, None],
                  0.05 * x["deformation_rate"] * (x["t"] - x["t~1"])[:, None], 0.0)}),
    ModelCase("cp-deformation-gradient-predictor",
              model_hit("CrystalPlasticityDeformationGradientPredictor", "scale = 0.2"),
              {"deformation_gradient": np.eye(3) + np.stack([0.05 * RNG.normal(size=(3, 3)),
                                                             1e-5 * RNG.normal(size=(3, 3)),
                                                             0.1 * RNG.normal(size=(3, 3))]),
               "plastic_deformation_gradient~1": np.eye(3) + 0.01 * RNG.normal(size=(N, 3, 3))},
              lambda x: {"plastic_deformation_gradient": _fp_predictor(
                  x["deformation_gradient"], x["plastic_deformation_gradient~1"], 0.2, 1e-3)}),
]  # fmt: skip


def _fp_predictor(F: np.ndarray, P: np.ndarray, s: float, thr: float) -> np.ndarray:
    out = []
    for f, p in zip(F, P, strict=True):
        X = f @ np.linalg.inv(p)
        if np.linalg.norm(0.5 * (X + X.T) - np.eye(3)) > thr:
            out.append(np.linalg.inv(np.eye(3) + s * (X - np.eye(3))) @ f)
        else:
            out.append(p)
    return np.stack(out)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_cp_leaf(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_slip_axis_mismatch_names_the_model_and_variable() -> None:
    from neml2.factory import load_string

    model = load_string(hit("PlasticDeformationRate")).get_model("model")
    from neml2.tensors import R2, Scalar

    x: dict[str, Any] = {
        "orientation_matrix": R2(torch.eye(3, dtype=torch.float64).expand(2, 3, 3)),
        "slip_rates": Scalar(torch.zeros(2, 6, dtype=torch.float64), sub_batch_ndim=1),
    }
    with pytest.raises(ValueError) as err:
        model.value(x)
    msg = str(err.value)
    assert "PlasticDeformationRate 'model'" in msg and "'slip_rates'" in msg and "12" in msg, msg
