"""TransientDriver: recording rules and result keys (``docs/guide/drivers.md``), checked key by key
against the closed form of the scenario; validation errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from driver_scenario import Scenario, make
from narrow import narrow

from neml2 import log
from neml2.drivers import TransientDriver
from neml2.factory import load_string

COVERED_TYPES = {"TransientDriver"}


def _tol(dtype: torch.dtype) -> dict[str, float]:
    return (
        {"rtol": 1e-12, "atol": 1e-12} if dtype == torch.float64 else {"rtol": 1e-5, "atol": 1e-5}
    )


def _run(sc: Any, dtype: torch.dtype, device: torch.device, **kw: str) -> dict[str, torch.Tensor]:
    driver = narrow(
        load_string(sc.hit(**kw), dtype=dtype, device=device).get_driver("driver"), TransientDriver
    )
    assert isinstance(driver, TransientDriver)
    assert driver.run() is True
    return driver.result()


def _close(actual: torch.Tensor, expected: object, dtype: torch.dtype) -> None:
    exp = torch.as_tensor(np.asarray(expected), dtype=torch.float64)
    tol = _tol(dtype)
    torch.testing.assert_close(
        actual.detach().cpu().double(), exp, rtol=tol["rtol"], atol=tol["atol"]
    )


@pytest.mark.parametrize("x0", [0.5, None], ids=["with-ic", "no-ic"])
def test_keys_shapes_values(x0: float | None, dtype: torch.dtype, device: torch.device) -> None:
    sc = make(nsteps=5, batch=3, x0=x0)
    res = _run(sc, dtype, device)
    n = sc.nsteps
    expected_keys = {f"input.{k}.{v}" for k in range(n) for v in ("t", "strain", "x_rate")}
    expected_keys |= {f"input.{k}.t~1" for k in range(1, n)}
    # x~1 comes from output x of the previous step: step 1 only if an IC was given
    first_lag = 1 if x0 is not None else 2
    expected_keys |= {f"input.{k}.x~1" for k in range(first_lag, n)}
    expected_keys |= {f"output.{k}.{v}" for k in range(1, n) for v in ("stress", "x")}
    if x0 is not None:
        expected_keys.add("output.0.x")
    assert set(res) == expected_keys

    stress, xs = sc.stress(), sc.x()
    for k in range(n):
        assert res[f"input.{k}.t"].shape == ()
        assert res[f"input.{k}.strain"].shape == (3, 6)
        assert res[f"input.{k}.strain"].dtype == dtype
        assert res[f"input.{k}.strain"].device.type == device.type
        _close(res[f"input.{k}.t"], sc.times[k], dtype)
        _close(res[f"input.{k}.strain"], sc.strain[k], dtype)
        _close(res[f"input.{k}.x_rate"], sc.rate[k], dtype)
        if k >= 1:
            _close(res[f"input.{k}.t~1"], sc.times[k - 1], dtype)
            assert res[f"output.{k}.stress"].shape == (3, 6)
            _close(res[f"output.{k}.stress"], stress[k], dtype)
            assert res[f"output.{k}.x"].shape == ()
            _close(res[f"output.{k}.x"], xs[k], dtype)
        if k >= first_lag:
            _close(res[f"input.{k}.x~1"], xs[k - 1], dtype)


def test_step_zero_does_not_call_the_model(dtype: torch.dtype, device: torch.device) -> None:
    sc = make(nsteps=4, batch=2)
    driver = narrow(
        load_string(sc.hit(), dtype=dtype, device=device).get_driver("driver"), TransientDriver
    )
    calls: list[set[str]] = []
    original = driver.model.call_by_name

    def spy(state: dict[str, object]) -> dict[str, object]:
        calls.append(set(state))
        out: dict[str, object] = original(state)
        return out

    driver.model.call_by_name = spy
    driver.run()
    assert len(calls) == sc.nsteps - 1
    assert all(c == set(driver.model.input_spec) for c in calls)


def test_single_step_records_only_step_zero(dtype: torch.dtype) -> None:
    sc = make(nsteps=1, batch=1)
    res = _run(sc, dtype, torch.device("cpu"))
    assert set(res) == {"input.0.t", "input.0.strain", "input.0.x_rate", "output.0.x"}


def test_save_as_writes_file_and_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sc = make(nsteps=3, batch=1)
    out = tmp_path / "res.pt"
    lines: list[tuple[int, str]] = []
    log.reset()
    log.set_default_level("driver", "info")
    log.set_sink(lambda level, line: lines.append((level, line)))
    try:
        driver = narrow(
            load_string(sc.hit(driver_extra=f"    save_as = '{out}'\n")).get_driver("driver"),
            TransientDriver,
        )
        driver.run()
    finally:
        log.reset()
    saved = torch.load(out, weights_only=True)
    res = driver.result()
    assert set(saved) == set(res)
    for k, v in res.items():
        torch.testing.assert_close(saved[k], v, rtol=0, atol=0)
    assert (log.INFO, f"[neml2:driver ][info] Results saved to {out}") in lines


def test_save_result(tmp_path: Path) -> None:
    driver = narrow(
        load_string(make(nsteps=2, batch=1).hit()).get_driver("driver"), TransientDriver
    )
    driver.run()
    driver.save_result(tmp_path / "r.pt")
    assert set(torch.load(tmp_path / "r.pt", weights_only=True)) == set(driver.result())


def test_lag_two_is_shifted_from_lag_one() -> None:
    # a~2 at step k is copied from the input a~1 of step k-1 (a prescribed force here).
    text = """
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.tensor([0.0, 1.0, 2.0, 3.0], dtype=torch.float64))'
  []
  [a]
    type = Python
    expr = 'Scalar(torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64))'
  []
[]
[Models]
  [model]
    type = ScalarLinearCombination
    from = 'a~1 a~2'
    to = 'y'
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_Scalar_names = 'a~1'
    prescribed_Scalar_values = 'a'
  []
[]
"""
    driver = narrow(load_string(text).get_driver("driver"), TransientDriver)
    driver.run()
    res = driver.result()
    assert "input.0.a~2" not in res
    assert [float(res[f"input.{k}.a~2"]) for k in (1, 2, 3)] == [1.0, 2.0, 3.0]
    assert [float(res[f"output.{k}.y"].detach()) for k in (1, 2, 3)] == [3.0, 5.0, 7.0]


# ------------------------------------------------------------------------------------ errors
def _err(sc: Any, old: str, new: str) -> str:
    text: str = sc.hit()
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ("model = 'model'", "model = 'nomodel'", r"No \[Models/nomodel\]"),
        (
            "prescribed_SR2_names = 'strain'",
            "prescribed_SR2_names = 'strian'",
            r"\[Drivers/driver\].*'prescribed_SR2_names': 'strian' is not an input of model "
            r"'model'",
        ),
        (
            "ic_Scalar_names = 'x'",
            "ic_Scalar_names = 'y'",
            r"'ic_Scalar_names': 'y' is neither an input nor an output",
        ),
        (
            "prescribed_Scalar_names = 'x_rate'",
            "prescribed_Scalar_names = 'stress'",
            r"'prescribed_Scalar_names': 'stress' is not an input",
        ),
        (
            "prescribed_SR2_names = 'strain'",
            "prescribed_SR2_names = 't~1'",
            r"'prescribed_SR2_names': 't~1' is a Scalar variable of model 'model', not a SR2",
        ),
        (
            "prescribed_SR2_values = 'eps'",
            "prescribed_SR2_values = 'eps nope'",
            r"'prescribed_SR2_names' and 'prescribed_SR2_values' have different lengths",
        ),
        (
            "prescribed_SR2_values = 'eps'",
            "prescribed_SR2_values = 'nope'",
            r"'prescribed_SR2_values': 'nope' is not a \[Tensors\] block",
        ),
        (
            "prescribed_Scalar_values = 'xrate'",
            "prescribed_Scalar_values = 'eps'",
            r"\[Tensors/eps\] is a SR2, expected a Scalar",
        ),
        ("type = TransientDriver", "type = TransientDrivr", r"TransientDrivr.*not registered"),
        (
            "prescribed_time = 'times'",
            "prescribed_time = 'times'\n    bogus = 1",
            r"unknown option\(s\) \['bogus'\]",
        ),
    ],
)
def test_bad_input(old: str, new: str, match: str) -> None:
    text = _err(make(nsteps=3, batch=1), old, new)
    with pytest.raises((ValueError, KeyError)) as info:
        load_string(text).get_driver("driver")
    assert info.match(match)


def test_force_length_must_match_time_steps() -> None:
    sc = make(nsteps=4, batch=2)
    short = Scenario(sc.times, sc.strain[:3], sc.rate, sc.x0)
    text = short.hit().replace(
        f"expr = 'Scalar(torch.tensor({short.times.tolist()}",
        f"expr = 'Scalar(torch.tensor({sc.times.tolist()}",
    )
    with pytest.raises(
        ValueError,
        match=r"the force for 'strain' has 3 step\(s\).*prescribed_time "
        r"has 4",
    ):
        load_string(text).get_driver("driver")


def test_time_without_step_axis() -> None:
    text = make(nsteps=3).hit().replace("prescribed_time = 'times'", "prescribed_time = '1.0'")
    with pytest.raises(ValueError, match=r"'prescribed_time': '1.0' has no leading step axis"):
        load_string(text).get_driver("driver")


def test_missing_driver_block() -> None:
    with pytest.raises(KeyError, match=r"No \[Drivers/zz\]"):
        load_string(make(nsteps=2).hit()).get_driver("zz")


def test_progress_bar(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    driver = narrow(
        load_string(make(nsteps=5, batch=1).hit()).get_driver("driver"), TransientDriver
    )
    driver.run()
    assert capsys.readouterr().out == ""  # stdout is not a TTY under pytest: quiet
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    driver.run()
    out = capsys.readouterr().out
    assert "TransientDriver" in out
    assert "4/4" in out
    assert "step/s" in out


def test_zero_fill_uses_declared_sub_batch() -> None:
    # strain is not prescribed: zero-filled with the [Settings] sub-batch, never recorded
    sc = make(nsteps=3, batch=1)
    text = sc.hit().replace(
        "    prescribed_SR2_names = 'strain'\n    prescribed_SR2_values = 'eps'\n", ""
    )
    text += "[Settings]\n  [example_batch_shape]\n    strain = '(; 4)'\n  []\n[]\n"
    driver = narrow(load_string(text).get_driver("driver"), TransientDriver)
    driver.run()
    res = driver.result()
    assert not any(k.endswith(".strain") for k in res)
    for k in (1, 2):
        assert res[f"output.{k}.stress"].shape == (4, 6)
        assert not res[f"output.{k}.stress"].any()


def test_force_sub_batch_must_match_declaration() -> None:
    sc = make(nsteps=3, batch=2)
    text = sc.hit().replace(
        "expr = 'SR2(torch.tensor(", "expr = 'SR2(sub_batch_ndim=1, data=torch.tensor(", 1
    )
    text += "[Settings]\n  [example_batch_shape]\n    strain = '(3; 5)'\n  []\n[]\n"
    with pytest.raises(
        ValueError,
        match=r"'strain' has sub-batch shape \[2\], but \[Settings\] "
        r"declares \[5\]",
    ):
        load_string(text).get_driver("driver")
