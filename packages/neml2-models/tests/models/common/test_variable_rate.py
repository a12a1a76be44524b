"""<T>VariableRate: (x - x~1) / (t - t~1)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(0)


def _hit(t: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = {t}VariableRate
    variable = 'x'
    {extra}
  []
[]
"""


def _rate(
    x: dict[str, np.ndarray], var: str = "x", time: str = "t", out: str = "x_rate"
) -> dict[str, np.ndarray]:
    dt = x[time] - x[f"{time}~1"]
    base = x[var].ndim - dt.ndim
    return {out: (x[var] - x[f"{var}~1"]) / dt.reshape(dt.shape + (1,) * base)}


def _inputs(base: tuple[int, ...], time: str = "t") -> dict[str, np.ndarray]:
    return {
        "x": RNG.normal(size=(3, *base)),
        "x~1": RNG.normal(size=(3, *base)),
        time: 1.0 + RNG.random(3),
        f"{time}~1": RNG.random(3),
    }


CASES = [
    ModelCase("Scalar", _hit("Scalar"), _inputs(()), _rate),
    ModelCase("SR2", _hit("SR2"), _inputs((6,)), _rate),
    ModelCase("R2", _hit("R2"), _inputs((3, 3)), _rate),
    ModelCase("Vec", _hit("Vec"), _inputs((3,)), _rate),
    ModelCase(
        "renamed",
        _hit("Scalar", "time = 'tt'\n    variable_rate = 'xdot'"),
        _inputs((), "tt"),
        lambda x: _rate(x, time="tt", out="xdot"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_variable_rate(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)
