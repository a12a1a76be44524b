"""``neml2-run``: run a driver of an input file."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import torch

from neml2.cli._common import (
    add_load,
    add_python_switch,
    allow_python,
    apply_loads,
    new_parser,
    parse_device,
    run_tool,
    torch_defaults,
)
from neml2.outputs import check_writable

__all__ = ["main", "parser"]

_EPILOG = """\
Any other token is a HIT override appended to the input file, e.g.
  neml2-run model.i driver Models/elastic/coefficients:='2e5 0.3' Drivers/driver/save_as:=o.pt
(overriding an existing field needs ':=').

History output (TransientDriver, or a driver wrapping one such as TransientRegression):
  --csv FILE writes one row per step (and batch entry) with columns step[, batch] and one column
  per component: <var> (Scalar), <var>_x/_y/_z (Vec), <var>_xx/_yy/_zz/_yz/_xz/_xy (SR2, Mandel
  storage), <var>_zy/_xz/_yx (WR2), <var>_i_j... (others); cells of unrecorded values are empty.
  --plot FILE draws --plot-y against --plot-x (defaults: stress_xx vs strain_xx if recorded, else
  the first output's components vs the time input, else vs step).

A TransientDriver shows a progress bar (step count and rate) when stdout is a terminal.
Exit status 0 on success; on failure 'Error: <message>' on stderr and status 1."""


def parser() -> argparse.ArgumentParser:
    """The ``neml2-run`` argument parser."""
    p = new_parser("neml2-run", "Run a driver ([Drivers] block) of a NEML2 input file.", _EPILOG)
    p.add_argument("input", metavar="INPUT", help="HIT input file")
    p.add_argument("driver", metavar="DRIVER", help="name of the [Drivers] block to run")
    p.add_argument("--device", default="cpu", help="torch device: cpu, cuda, xpu, hip, mps[:N]")
    p.add_argument(
        "--dtype",
        default="float64",
        choices=("float64", "float32"),
        help="floating dtype (default float64)",
    )
    add_load(p)
    add_python_switch(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse to run when a model input is neither prescribed nor initialized "
        "(default: a warning, and the input is zero at every step)",
    )
    p.add_argument("--csv", metavar="FILE", help="write the recorded history to FILE as CSV")
    p.add_argument(
        "--vars",
        metavar="VAR[,VAR...]",
        help="comma-separated variables written by --csv (default: all recorded)",
    )
    p.add_argument(
        "--plot", metavar="FILE", help="plot the recorded history to FILE (png, pdf, svg)"
    )
    p.add_argument("--plot-x", metavar="COLUMN", help="x column of --plot")
    p.add_argument("--plot-y", metavar="COLUMN[,COLUMN...]", help="y column(s) of --plot")
    return p


def _transient(driver: Any, name: str) -> Any:
    d = driver
    while not hasattr(d, "result") and hasattr(d, "driver"):
        d = d.driver
    if not hasattr(d, "result"):
        raise ValueError(
            f"--csv/--plot need a TransientDriver (or a driver wrapping one); "
            f"[Drivers/{name}] is a {type(driver).__name__}"
        )
    return d


def _set_strict(driver: Any) -> None:
    """``strict = True`` on the driver and every driver it wraps that has the switch."""
    d = driver
    while d is not None:
        if hasattr(d, "strict"):
            d.strict = True
        d = getattr(d, "driver", None)


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _history_outputs(args: argparse.Namespace, transient: Any) -> None:
    from neml2.cli import _history as h

    result = transient.result()
    types = transient.variable_types()
    if args.csv:
        h.write_csv(h.build_history(result, types, _split(args.vars)), args.csv)
    if args.plot:
        table = h.build_history(result, types)
        _, outs = h.recorded_variables(result)
        x, ys = h.default_plot_columns(table, outs, types, transient.time_name)
        h.plot_history(table, args.plot_x or x, _split(args.plot_y) or ys, args.plot)


def run(args: argparse.Namespace, overrides: list[str]) -> int:
    """Load, run the driver, write the optional history outputs."""
    from neml2.factory import load_input

    device = parse_device(args.device)
    dtype = getattr(torch, args.dtype)
    if (args.vars or args.plot_x or args.plot_y) and not (args.csv or args.plot):
        raise ValueError("--vars/--plot-x/--plot-y need --csv or --plot")
    for flag, target in (("--csv", args.csv), ("--plot", args.plot)):
        if target:
            check_writable(target, flag)
    apply_loads(args.load)
    with torch_defaults(dtype, device):
        factory = load_input(
            args.input,
            additional_args=overrides,
            device=device,
            dtype=dtype,
            allow_python=allow_python(args),
        )
        driver = factory.get_driver(args.driver)
        transient = _transient(driver, args.driver) if (args.csv or args.plot) else None
        if args.strict:
            _set_strict(driver)
        driver.run()
        if transient is not None:
            _history_outputs(args, transient)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``neml2-run``."""
    return run_tool(parser, run, argv)


if __name__ == "__main__":
    sys.exit(main())
