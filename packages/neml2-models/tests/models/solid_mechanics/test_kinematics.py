"""Kinematics: eigenstrains, deformation Jacobians, volume-adjusted deformation gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from model_hit import model_hit as _hit

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(5)
I6 = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
N = 4


def _iso(e: np.ndarray) -> Any:
    return np.asarray(e)[..., None] * I6


T = RNG.uniform(300, 900, N)
CASES = [
    ModelCase("thermal-eigenstrain",
              _hit("ThermalEigenstrain", "reference_temperature = 300\n    CTE = 1e-5"),
              {"temperature": T}, lambda x: {"eigenstrain": _iso(1e-5 * (x["temperature"] - 300))}),
    ModelCase("thermal-eigenstrain-promoted",
              _hit("ThermalEigenstrain", "reference_temperature = 300\n    CTE = 'alpha'"),
              {"temperature": T, "alpha": RNG.uniform(1e-6, 1e-5, N)},
              lambda x: {"eigenstrain": _iso(x["alpha"] * (x["temperature"] - 300))}),
    ModelCase("volume-change-eigenstrain",
              _hit("VolumeChangeEigenstrain", "reference_volume = 2"),
              {"volume": RNG.uniform(1.5, 2.5, N)},
              lambda x: {"eigenstrain": _iso((x["volume"] / 2) ** (1 / 3) - 1)}),
    ModelCase("phase-transformation-eigenstrain", _hit("PhaseTransformationEigenstrain"),
              {"phase_fraction": RNG.uniform(0, 1, N), "volume_fraction_change": RNG.uniform(-0.1, 0.1, N)},
              lambda x: {"eigenstrain": _iso(x["phase_fraction"] * x["volume_fraction_change"])}),
    ModelCase("thermal-jacobian",
              _hit("ThermalDeformationJacobian", "reference_temperature = 300\n    CTE = 'alpha'"),
              {"temperature": T, "alpha": RNG.uniform(1e-6, 1e-5, N)},
              lambda x: {"jacobian": 1 + x["alpha"] * (x["temperature"] - 300)}),
    ModelCase("swelling-jacobian",
              _hit("SwellingAndPhaseChangeDeformationJacobian",
                   "phase_fraction = 'c'\n    swelling_coefficient = 0.3\n    reference_volume_difference = 0.05"),
              {"fluid_fraction": RNG.uniform(0, 1, N), "c": RNG.uniform(0, 1, N)},
              lambda x: {"jacobian": 1 + 0.3 * x["c"] * x["fluid_fraction"]
                         + (1 - x["c"]) * x["fluid_fraction"] * 0.05}),
    ModelCase("volume-adjust",
              _hit("VolumeAdjustDeformationGradient", "input = 'F'\n    output = 'Fv'\n    jacobian = 'J'"),
              {"F": np.eye(3) + 0.1 * RNG.normal(size=(N, 3, 3)), "J": RNG.uniform(0.8, 1.2, N)},
              lambda x: {"Fv": x["J"][:, None, None] ** (-1 / 3) * x["F"]}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_kinematics(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)
