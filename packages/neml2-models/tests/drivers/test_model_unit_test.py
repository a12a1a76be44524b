"""ModelUnitTest harness: values vs an independent numpy closed form, JVPs vs autograd,
counts, failure listings and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from driver_scenario import LAM, MU, make

from neml2.drivers import ComparisonError, ModelUnitTest, ModelUnitTestReport

RNG = np.random.default_rng(3)
EPS = RNG.normal(scale=1e-3, size=(2, 6))


def _stress(eps: np.ndarray) -> np.ndarray:
    tr = eps[..., :3].sum(-1, keepdims=True)
    out: np.ndarray = LAM * tr * np.array([1.0, 1, 1, 0, 0, 0]) + 2 * MU * eps
    return out


def _text(eps: np.ndarray, stress: np.ndarray, extra: str = "") -> str:
    sc = make(nsteps=2, batch=1)
    text: str = (
        sc.hit(
            extra_blocks=f"""  [unit]
    type = ModelUnitTest
    model = 'model'
    input_SR2_names = 'strain'
    input_SR2_values = 'e'
    input_Scalar_names = 'x~1 t t~1 x_rate'
    input_Scalar_values = '0.5 2.0 1.5 -3.0'
    output_SR2_names = 'stress'
    output_SR2_values = 's'
    output_Scalar_names = 'x'
    output_Scalar_values = '{0.5 + 0.5 * -3.0!r}'
    some_unknown_key = 'ignored'
{extra}  []
"""
        )
        + f"""[Tensors]
  [e]
    type = Python
    expr = 'SR2(torch.tensor({eps.tolist()}, dtype=torch.float64))'
  []
  [s]
    type = Python
    expr = 'SR2(torch.tensor({stress.tolist()}, dtype=torch.float64))'
  []
[]
"""
    )
    return text


def test_passes_and_counts() -> None:
    report = ModelUnitTest.from_string(_text(EPS, _stress(EPS))).run()
    assert report == ModelUnitTestReport(value_checks=2, jvp_checks=5 * 2)


def test_from_file_and_name(tmp_path: Path) -> None:
    p = tmp_path / "unit.i"
    p.write_text(_text(EPS, _stress(EPS)))
    assert ModelUnitTest.from_file(p, "unit").run().value_checks == 2
    with pytest.raises(
        KeyError,
        match=r"No \[Drivers\] block named 'driver' with type = "
        r"ModelUnitTest",
    ):
        ModelUnitTest.from_file(p, "driver")


def test_wrong_value_is_listed() -> None:
    bad = _stress(EPS)
    bad[1, 3] += 1.0
    with pytest.raises(
        ComparisonError,
        match=r"(?s)ModelUnitTest failed:\n  stress: max_abs="
        r"1.000000e\+00",
    ):
        ModelUnitTest.from_string(_text(EPS, bad)).run()
    assert ModelUnitTest.from_string(_text(EPS, bad)).run(check_values=False).value_checks == 0


def test_wrong_derivative_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    unit = ModelUnitTest.from_string(_text(EPS, _stress(EPS)))
    original = unit.model.jvp

    def skewed(inputs: dict[str, object], tangents: dict[str, object]) -> object:
        outs, d = original(inputs, tangents)
        return outs, {k: v * 1.5 if k == "stress" else v for k, v in d.items()}

    monkeypatch.setattr(unit.model, "jvp", skewed)
    with pytest.raises(ComparisonError, match=r"d\(stress\)/d\(strain\): max_abs="):
        unit.run(check_values=False)


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        (
            "input_Scalar_names = 'x~1 t t~1 x_rate'",
            "input_Scalar_names = 'x~1 t t~1 x_rat'",
            r"missing: \['x_rate'\], not inputs: \['x_rat'\]",
        ),
        ("output_Scalar_names = 'x'", "output_Scalar_names = 'y'", r"'y' is not an output"),
        ("input_SR2_values = 'e'", "input_SR2_values = 'e e'", r"different lengths"),
    ],
)
def test_bad_input(old: str, new: str, match: str) -> None:
    text = _text(EPS, _stress(EPS))
    assert old in text
    with pytest.raises(ValueError, match=r"\[Drivers/unit\].*" + match):
        ModelUnitTest.from_string(text.replace(old, new))


def test_no_block() -> None:
    with pytest.raises(KeyError, match=r"with type = ModelUnitTest"):
        ModelUnitTest.from_string(make(nsteps=2).hit())
