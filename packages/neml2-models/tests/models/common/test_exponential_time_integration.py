"""WR2{Explicit,Implicit}ExponentialTimeIntegration (composition checked via quaternion algebra)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(13)


def _hit(t: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = WR2{t}ExponentialTimeIntegration
    variable = 'q'
    {extra}
  []
[]
"""


def _exp_map(w: np.ndarray) -> np.ndarray:
    """WR2 -> MRP exponential map as specified (trig of the squared norm, Taylor branch)."""
    n2 = (w * w).sum(-1, keepdims=True)
    safe = np.where(n2 > np.finfo(np.float64).eps ** (1 / 3), n2, 1.0)
    a = np.where(
        safe == n2, np.tan(safe / 2) / (2 * safe * np.cos(safe / 2)), 0.25 + 5 * n2**2 / 96
    )
    return np.asarray(a * w)


def _quat(r: np.ndarray) -> np.ndarray:
    s = (r * r).sum(-1, keepdims=True)
    return np.concatenate([(1 - s) / (1 + s), 2 * r / (1 + s)], -1)


def _compose(r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
    """MRP of R(r1) R(r2) through the Hamilton product of the unit quaternions."""
    p, q = _quat(r1), _quat(r2)
    w = p[..., :1] * q[..., :1] - (p[..., 1:] * q[..., 1:]).sum(-1, keepdims=True)
    v = p[..., :1] * q[..., 1:] + q[..., :1] * p[..., 1:] + np.cross(p[..., 1:], q[..., 1:])
    return np.asarray(v / (1 + w))


def _update(x: dict[str, np.ndarray], time: str = "t", rate: str = "q_rate") -> np.ndarray:
    dt = (x[time] - x[f"{time}~1"])[..., None]
    return _compose(_exp_map(dt * x[rate]), x["q~1"])


def _inputs(time: str = "t", rate: str = "q_rate", n: int = 4) -> dict[str, np.ndarray]:
    return {
        "q~1": 0.3 * RNG.normal(size=(n, 3)),
        time: 1.0 + RNG.random(n),
        f"{time}~1": 0.5 * RNG.random(n),
        rate: 0.4 * RNG.normal(size=(n, 3)),
    }


SMALL = _inputs()
SMALL["q_rate"] = 1e-3 * RNG.normal(size=(4, 3))  # Taylor branch of the exponential map
IMPLICIT = {"q": 0.3 * RNG.normal(size=(4, 3)), **_inputs()}

CASES = [
    ModelCase("explicit", _hit("Explicit"), _inputs(), lambda x: {"q": _update(x)}),
    ModelCase("explicit-small-spin", _hit("Explicit"), SMALL, lambda x: {"q": _update(x)}),
    ModelCase("explicit-renamed", _hit("Explicit", "time = 'T'\n    rate = 'spin'"),
              _inputs("T", "spin"), lambda x: {"q": _update(x, "T", "spin")}),
    ModelCase("implicit", _hit("Implicit"), IMPLICIT,
              lambda x: {"q_residual": x["q"] - _update(x)}),
    ModelCase("implicit-renamed",
              _hit("Implicit", "rate = 'spin'\n    variable_residual = 'res'"),
              {"q": 0.3 * RNG.normal(size=(4, 3)), **_inputs(rate="spin")},
              lambda x: {"res": x["q"] - _update(x, rate="spin")}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_exponential_time_integration(
    case: ModelCase, dtype: torch.dtype, device: torch.device
) -> None:
    check_model(case, dtype=dtype, device=device)


def test_input_names() -> None:
    f = load_string(_hit("Implicit", "time = 'T'"))
    m = f.get_model("model")
    assert list(m.input_spec) == ["q", "q~1", "T", "T~1", "q_rate"]
    assert list(m.output_spec) == ["q_residual"]


def test_unknown_option() -> None:
    f = load_string(_hit("Explicit", "variable_rate = 'w'"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*unknown option.*'variable_rate'"):
        f.get_model("model")
