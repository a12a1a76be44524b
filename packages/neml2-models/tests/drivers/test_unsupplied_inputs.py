"""A model input the driver neither prescribes nor initializes is zero at every step (NEML2 v3's
behaviour). The driver says so by name before the first step: a warning by default, an error
with ``strict=True`` / ``neml2-run --strict``. The classic cause: a typo in a parameter value
(``weights = 'abc 0.3'``) reads as a variable name."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from neml2.cli.run import main
from neml2.drivers import TransientDriver
from neml2.factory import InputError, InputWarning, load_input, load_string

ROOT = Path(__file__).resolve().parents[4]

#: y = w0 * a + 0.3 * b with the typo 'abc' for the first weight; a = 1, b = 2 prescribed
TYPO = """
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, 4, dtype=torch.float64))'
  []
  [a]
    type = Python
    expr = 'Scalar(torch.ones(4, dtype=torch.float64))'
  []
  [b]
    type = Python
    expr = 'Scalar(torch.full((4,), 2.0, dtype=torch.float64))'
  []
[]
[Models]
  [model]
    type = ScalarLinearCombination
    from = 'a b'
    to = 'y'
    weights = '{w0} 0.3'
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_Scalar_names = 'a b'
    prescribed_Scalar_values = 'a b'
  []
[]
"""

NAMED = r"\[Drivers/driver\]: input\(s\) 'abc' \(the value of parameter 'weight_0' of \[Models/model\]\)"


def _driver(w0: str = "abc") -> TransientDriver:
    d = load_string(TYPO.format(w0=w0)).get_driver("driver")
    assert isinstance(d, TransientDriver)
    return d


def test_typo_in_a_weight_is_named_before_the_run_and_zero_filled() -> None:
    d = _driver()
    assert d.unsupplied_inputs() == ["abc"]
    with pytest.warns(InputWarning, match=NAMED + ".*zero at every step.*strict=True"):
        assert d.run()
    y = d.result()["output.3.y"]
    torch.testing.assert_close(y, torch.tensor(0.6, dtype=torch.float64))  # 0 * 1 + 0.3 * 2


def test_strict_refuses_before_the_first_step() -> None:
    d = _driver()
    d.strict = True
    with pytest.raises(InputError, match=NAMED + ".*strict mode"):
        d.run()
    assert d.result() == {}


def test_strict_constructor_argument() -> None:
    m = load_string(TYPO.format(w0="abc")).get_model("model")
    times = torch.linspace(0, 1, 3, dtype=torch.float64)
    ones = torch.ones(3, dtype=torch.float64)
    d = TransientDriver(
        model=m,
        prescribed_time=times,
        prescribed_Scalar_names=["a", "b"],
        prescribed_Scalar_values=[ones, ones],
        strict=True,
    )
    with pytest.raises(InputError, match=r"TransientDriver: input\(s\) 'abc'"):
        d.run()
    d.strict = False
    with pytest.warns(InputWarning):
        d.run()


def test_a_correct_weight_runs_silently() -> None:
    d = _driver("0.5")
    d.strict = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d.run()
    torch.testing.assert_close(d.result()["output.3.y"], torch.tensor(1.1, dtype=torch.float64))


def test_neml2_run_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.i"
    path.write_text(TYPO.format(w0="abc"))
    assert main([str(path), "driver", "--strict"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: [Drivers/driver]: input(s) 'abc'") and "strict mode" in err
    assert main([str(path), "driver"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Warning: [Drivers/driver]: input(s) 'abc'")


def test_old_values_carried_from_outputs_need_no_initial_condition() -> None:
    """The shipped Chaboche example prescribes strain and time only: its old states come from
    the previous step's outputs (zero initially), so nothing is reported, also under strict."""
    d = load_input(ROOT / "examples" / "viscoplasticity" / "chaboche.i").get_driver("driver")
    assert isinstance(d, TransientDriver)
    assert d.unsupplied_inputs() == []


def test_an_old_value_without_a_source_is_reported() -> None:
    """``q~1`` where ``q`` is neither an output nor supplied stays zero: reported; ``a~1`` of a
    prescribed ``a`` is carried over: not reported."""
    text = TYPO.format(w0="0.5").replace("from = 'a b'", "from = 'a b a~1 q~1'")
    text = text.replace("weights = '0.5 0.3'", "weights = '0.5 0.3 1 1'")
    d = load_string(text).get_driver("driver")
    assert isinstance(d, TransientDriver)
    assert d.unsupplied_inputs() == ["q~1"]
