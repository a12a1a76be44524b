"""HermiteSmoothStep (3u^2 - 2u^3, clamped) and SymmetricHermiteInterpolation (unit bump)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

LO, HI = -0.5, 1.5


def _hit(t: str, extra: str = "", lo: float = LO, hi: float = HI) -> str:
    return f"""
[Models]
  [model]
    type = {t}
    argument = 'x'
    lower_bound = {lo}
    upper_bound = {hi}
    {extra}
  []
[]
"""


def _step(x: np.ndarray) -> np.ndarray:
    u = np.clip((x - LO) / (HI - LO), 0.0, 1.0)
    return np.asarray(u * u * (3 - 2 * u))


def _bump(x: np.ndarray) -> np.ndarray:
    c = np.clip((x - LO) / (HI - LO), 0.0, 1.0)
    s = np.minimum(c, 1 - c)
    return np.asarray((24 * s**2 - 32 * s**3) / (HI - LO))


# below, inside on both halves, above; away from the bounds and the midpoint
POINTS = np.array([-1.3, -0.2, 0.1, 0.45, 0.62, 1.1, 1.4, 2.2])
CASES = [
    ModelCase("step", _hit("HermiteSmoothStep", "value = 'y'"), {"x": POINTS},
              lambda x: {"y": _step(x["x"])}),
    ModelCase("step-complement", _hit("HermiteSmoothStep", "complement = true"), {"x": POINTS},
              lambda x: {"value": 1.0 - _step(x["x"])}),
    ModelCase("bump", _hit("SymmetricHermiteInterpolation"), {"x": POINTS},
              lambda x: {"model": _bump(x["x"])}),
    ModelCase("bump-renamed", _hit("SymmetricHermiteInterpolation", "output = 'w'"),
              {"x": POINTS[2:5]}, lambda x: {"w": _bump(x["x"])}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hermite(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_bump_has_unit_integral() -> None:
    from neml2.factory import load_string
    from neml2.tensors import Scalar

    m = load_string(_hit("SymmetricHermiteInterpolation")).get_model("model")
    xs = torch.linspace(LO - 1, HI + 1, 20001, dtype=torch.float64)
    with torch.no_grad():
        ys = m(Scalar(xs)).data
    assert abs(float(torch.trapezoid(ys, xs)) - 1.0) < 1e-6


@pytest.mark.parametrize("t", ["HermiteSmoothStep", "SymmetricHermiteInterpolation"])
def test_bounds_must_increase(t: str) -> None:
    from neml2.factory import load_string

    f = load_string(_hit(t, lo=1.0, hi=1.0))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'upper_bound'.*'lower_bound'"):
        f.get_model("model")
