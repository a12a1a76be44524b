"""ScalarPNorm: y = (sum_i w_i |x_i|^p + eps)^(1/p)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(9)
EPS64 = np.finfo(np.float64).eps


def _hit(opts: str) -> str:
    return f"""
[Models]
  [model]
    type = ScalarPNorm
    from = 'a b c'
    to = 'y'
    {opts}
  []
[]
"""


def _away_from_zero(n: int) -> np.ndarray:
    return RNG.choice([-1.0, 1.0], size=n) * (0.2 + RNG.random(n))


def _pnorm(x: dict[str, np.ndarray], p: float, w: tuple[float, ...]) -> dict[str, np.ndarray]:
    s = sum(wi * np.abs(x[k]) ** p for wi, k in zip(w, "abc", strict=True))
    return {"y": (s + EPS64) ** (1.0 / p)}


IN = {k: _away_from_zero(4) for k in "abc"}
CASES = [
    ModelCase("p2", _hit("exponent = 2"), IN, lambda x: _pnorm(x, 2.0, (1, 1, 1))),
    ModelCase("p3-weights", _hit("exponent = 3\n    weights = '0.5 2 1.5'"), IN,
              lambda x: _pnorm(x, 3.0, (0.5, 2, 1.5))),
    ModelCase("p1.5-one-weight", _hit("exponent = 1.5\n    weights = 4"), IN,
              lambda x: _pnorm(x, 1.5, (4, 4, 4))),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_scalar_pnorm(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_weight_count_mismatch() -> None:
    f = load_string(_hit("exponent = 2\n    weights = '1 2'"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'weights'.*expected 1 or 3"):
        f.get_model("model")


def test_missing_exponent() -> None:
    f = load_string(_hit(""))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'exponent'"):
        f.get_model("model")
