"""A Newton failure is a recoverable ConvergenceError in Python and exit status 1 in neml2-run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import neml2
from neml2.solvers import ConvergenceError

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "viscoplasticity" / "chaboche.i"
CAP = "Solvers/newton/max_its:=2"  # too few updates for the first plastic step


def test_python_raises_the_recoverable_error() -> None:
    driver = neml2.load_input(EXAMPLE, additional_args=[CAP]).get_driver("driver")
    with pytest.raises(ConvergenceError, match=r"Newton failed to converge in 2 iterations") as e:
        driver.run()
    assert isinstance(e.value, RuntimeError)
    assert "atol = 1.000000e-10" in str(e.value)


def test_neml2_run_exits_1_with_one_error_line() -> None:
    run = Path(sys.executable).with_name("neml2-run")
    proc = subprocess.run(
        [str(run), str(EXAMPLE), "driver", CAP], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    # where (the driver step and time), then the solver's own message naming the model
    assert lines[0].startswith(
        "Error: TransientDriver 'driver' step 1 of 100 (t = 0.04): "
        "Nonlinear solve failed with status MAXITER: ImplicitUpdate 'model'"
    ), lines[0]
    assert "Newton failed to converge in 2 iterations" in lines[0]
