"""<T>BackwardEulerTimeIntegration (r = x - x~1 - dt * rate) and
<T>ForwardEulerTimeIntegration (x = x~1 + dt * rate)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(13)
BASES = {"Scalar": (), "SR2": (6,), "R2": (3, 3), "Vec": (3,)}


def _hit(t: str, kind: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = {t}{kind}EulerTimeIntegration
    variable = 'x'
    {extra}
  []
[]
"""


def _dt(x: dict[str, np.ndarray], base: int, time: str = "t") -> np.ndarray:
    dt = x[time] - x[f"{time}~1"]
    return np.asarray(dt).reshape(dt.shape + (1,) * base)


def _inputs(t: str, names: tuple[str, ...], time: str = "t") -> dict[str, np.ndarray]:
    out = {n: RNG.normal(size=(3, *BASES[t])) for n in names}
    out[time] = 1.0 + RNG.random(3)
    out[f"{time}~1"] = RNG.random(3)
    return out


def _backward(t: str) -> ModelCase:
    nb = len(BASES[t])
    return ModelCase(
        f"BE-{t}",
        _hit(t, "Backward"),
        _inputs(t, ("x", "x~1", "x_rate")),
        lambda x: {"x_residual": x["x"] - x["x~1"] - _dt(x, nb) * x["x_rate"]},
    )


def _forward(t: str) -> ModelCase:
    nb = len(BASES[t])
    return ModelCase(
        f"FE-{t}",
        _hit(t, "Forward"),
        _inputs(t, ("x~1", "x_rate")),
        lambda x: {"x": x["x~1"] + _dt(x, nb) * x["x_rate"]},
    )


CASES = (
    [_backward(t) for t in BASES]
    + [_forward(t) for t in ("Scalar", "SR2", "R2")]
    + [
        ModelCase(
            "BE-renamed",
            _hit("SR2", "Backward", "time = 'tt'\n    rate = 'xd'\n    variable_residual = 'res'"),
            _inputs("SR2", ("x", "x~1", "xd"), "tt"),
            lambda x: {"res": x["x"] - x["x~1"] - _dt(x, 1, "tt") * x["xd"]},
        ),
        ModelCase(
            "FE-renamed",
            _hit("Scalar", "Forward", "old_variable = 'x0'\n    rate = 'xd'\n    time = 'tt'"),
            _inputs("Scalar", ("x0", "xd"), "tt"),
            lambda x: {"x": x["x0"] + _dt(x, 0, "tt") * x["xd"]},
        ),
    ]
)


COMPOSED = """
[Models]
  [rate]
    type = ScalarToDiagonalSR2
    input = 's'
    output = 'x_rate'
  []
  [update]
    type = SR2ForwardEulerTimeIntegration
    variable = 'x'
  []
  [model]
    type = ComposedModel
    models = 'rate update'
  []
[]
"""
CASES.append(
    ModelCase(
        "composed-FE-diagonal-rate",
        COMPOSED,
        {
            "x~1": RNG.normal(size=(3, 6)),
            "s": RNG.normal(size=3),
            "t": 1.0 + RNG.random(3),
            "t~1": RNG.random(3),
        },
        lambda x: {"x": x["x~1"] + _dt(x, 1) * x["s"][:, None] * np.array([1.0, 1, 1, 0, 0, 0])},
    )
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_euler_time_integration(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_io_names() -> None:
    from neml2.factory import load_string

    be = load_string(_hit("Scalar", "Backward")).get_model("model")
    assert list(be.input_spec) == ["x", "x~1", "t", "t~1", "x_rate"]
    assert list(be.output_spec) == ["x_residual"]
    fe = load_string(_hit("R2", "Forward")).get_model("model")
    assert list(fe.input_spec) == ["x~1", "t", "t~1", "x_rate"]
    assert list(fe.output_spec) == ["x"]


def test_unknown_option() -> None:
    from neml2.factory import load_string

    with pytest.raises(Exception, match=r"\[Models/model\].*'old_variable'"):
        load_string(_hit("Scalar", "Backward", "old_variable = 'x0'")).get_model("model")
