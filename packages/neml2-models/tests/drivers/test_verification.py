"""Verification: closed-form reference tables (CSV written from numpy) pass; perturbed rows
fail with a per-variable listing; time_steps selection; bad input."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from driver_scenario import make, write_case

from neml2.drivers import ComparisonError, Verification
from neml2.factory import load_input

COVERED_TYPES = {"Verification"}


def _verify(path: str, *overrides: str) -> Verification:
    v = load_input(path, additional_args=list(overrides)).get_driver("verify")
    assert isinstance(v, Verification)
    return v


def _rewrite(path: Path, fn: object) -> None:
    rows = list(csv.reader(path.open()))
    rows = fn(rows)  # type: ignore[operator]
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)


def test_passes_against_closed_form(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=6, batch=1))
    assert _verify(path).run() is True


def test_perturbed_row_is_listed(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=6, batch=1))

    def bump(rows: list[list[str]]) -> list[list[str]]:
        rows[4][1] = repr(float(rows[4][1]) + 0.5)  # step 3, stress_yy
        rows[6][6] = repr(float(rows[6][6]) * 2.0)  # step 5, x
        return rows

    _rewrite(tmp_path / "reference.csv", bump)
    with pytest.raises(ComparisonError) as info:
        _verify(path).run()
    lines = str(info.value).splitlines()
    assert lines[0].startswith("Verification: 2 of 12 checked value(s) differ")
    by_key = {ln.split(":")[0].strip(): ln for ln in lines[1:]}
    assert set(by_key) == {"output.3.stress", "output.5.x"}
    assert by_key["output.3.stress"].startswith("  output.3.stress: max_abs=5.000000e-01")
    assert by_key["output.5.x"].endswith("max_rel=5.000000e-01")


def test_missing_step_passes_only_for_zero_rows(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=4, batch=1))

    def nonzero(rows: list[list[str]]) -> list[list[str]]:
        rows[1][0] = "1.0"  # step 0 has no output.stress
        return rows

    _rewrite(tmp_path / "reference.csv", nonzero)
    with pytest.raises(ComparisonError, match=r"output.0.stress: missing from the results"):
        _verify(path).run()


def test_time_steps_select_rows(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=6, batch=1))
    # keep rows of steps 2 and 5 only
    _rewrite(tmp_path / "reference.csv", lambda rows: [rows[0], rows[3], rows[6]])
    assert _verify(path, "Drivers/verify/time_steps='2 5'").run() is True
    with pytest.raises(ComparisonError):
        _verify(path, "Drivers/verify/time_steps='2 4'").run()


def test_single_time_step_uses_whole_table(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=6, batch=1))
    _rewrite(tmp_path / "reference.csv", lambda rows: [rows[0], rows[5]])
    assert _verify(path, "Drivers/verify/time_steps='4'").run() is True


def test_too_few_rows(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=6, batch=1))
    _rewrite(tmp_path / "reference.csv", lambda rows: rows[:3])
    with pytest.raises(
        ValueError,
        match=r"reference for 'output.x' has 2 row\(s\), fewer than the steps "
        r"checked \(no row for step 2\)",
    ):
        _verify(path).run()


@pytest.mark.parametrize(
    ("override", "match"),
    [
        ("Drivers/verify/SR2_names:=stress", r"'SR2_names': 'stress' must read 'input.<variable>'"),
        (
            "Drivers/verify/SR2_values:='stress_ref x_ref'",
            r"'SR2_names' and 'SR2_values' have "
            r"different lengths \(1 names, 2 values\)",
        ),
        (
            "Drivers/verify/Scalar_names:=output.stress",
            r"variable 'output.stress' is already given",
        ),
        ("Drivers/verify/SR2_values:=x_ref", r"\[Tensors/x_ref\] is a Scalar, expected a SR2"),
        ("Drivers/verify/driver:=nodriver", r"No \[Drivers/nodriver\]"),
    ],
)
def test_bad_input(tmp_path: Path, override: str, match: str) -> None:
    path = write_case(tmp_path, make(nsteps=3, batch=1))
    with pytest.raises((ValueError, KeyError), match=match):
        _verify(path, override)


def test_needs_a_reference(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=3, batch=1))
    with pytest.raises(ValueError, match=r"give at least one variable to verify"):
        _verify(
            path,
            "Drivers/verify/SR2_names:=''",
            "Drivers/verify/SR2_values:=''",
            "Drivers/verify/Scalar_names:=''",
            "Drivers/verify/Scalar_values:=''",
        )
