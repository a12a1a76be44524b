"""Recorded driver histories as a table: CSV export and plots for ``neml2-run``.

Columns: ``step``, ``batch`` (flat batch index, only when the results are batched), then one
column per component of each variable: ``<var>`` (Scalar), ``<var>_x _y _z`` (Vec),
``<var>_xx _yy _zz _yz _xz _xy`` (SR2, Mandel storage verbatim), ``<var>_zy _xz _yx`` (WR2) —
the names the ``CSV<T>`` tensor readers accept — and ``<var>_i_j…`` (other types). One row per
step and batch entry; a variable takes its output value if it has one at that step, else its
input value, else the cell is empty.
"""

from __future__ import annotations

import csv
import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from neml2.outputs import atomic_output
from neml2.tensor_sources.csv import SUFFIXES

__all__ = ["History", "build_history", "default_plot_columns", "plot_history", "write_csv"]

_broadcast_shapes: Any = torch.broadcast_shapes
Cell = float | int | None


@dataclass
class History:
    """A table of recorded values (``None`` = not recorded at that step)."""

    columns: list[str]
    rows: list[list[float | int | None]]

    def column(self, name: str) -> list[float | int | None]:
        """The values of one column."""
        i = self.columns.index(name)
        return [r[i] for r in self.rows]


def _suffixes(var: str, cls: Any) -> list[str]:
    known = SUFFIXES.get(cls.__name__)
    if known is not None:
        return [f"{var}{s}" for s in known]
    idx = itertools.product(*(range(n) for n in cls.BASE_SHAPE))
    return [var + "".join(f"_{i}" for i in ix) for ix in idx]


def _parse(result: dict[str, torch.Tensor]) -> tuple[int, list[str], list[str]]:
    """Number of steps, recorded input variables and output variables (first-seen order)."""
    nsteps = 0
    ins: dict[str, None] = {}
    outs: dict[str, None] = {}
    for key in result:
        prefix, k, var = key.split(".", 2)
        nsteps = max(nsteps, int(k) + 1)
        (ins if prefix == "input" else outs)[var] = None
    return nsteps, list(ins), list(outs)


def recorded_variables(result: dict[str, torch.Tensor]) -> tuple[list[str], list[str]]:
    """Recorded ``(inputs, outputs)`` variable names."""
    _, ins, outs = _parse(result)
    return ins, outs


def build_history(
    result: dict[str, torch.Tensor], types: dict[str, Any], variables: list[str] | None = None
) -> History:
    """Tabulate ``result`` (driver keys ``input|output.<k>.<var>``) for ``variables``."""
    nsteps, ins, outs = _parse(result)
    recorded = ins + [v for v in outs if v not in ins]
    chosen = recorded if variables is None else variables
    for v in chosen:
        if v not in recorded:
            raise ValueError(f"--vars: '{v}' was not recorded (recorded: {', '.join(recorded)})")
    values: dict[tuple[str, int], torch.Tensor] = {}
    batches = []
    for v in chosen:
        nbase = len(types[v].BASE_SHAPE)
        for k in range(nsteps):
            t = result.get(f"output.{k}.{v}", result.get(f"input.{k}.{v}"))
            if t is not None:
                t = t.detach().to("cpu", torch.float64)
                values[(v, k)] = t
                batches.append(tuple(t.shape[: t.dim() - nbase]))
    batch: tuple[int, ...] = tuple(_broadcast_shapes(*batches)) if batches else ()
    nb = math.prod(batch)
    columns = ["step"] + (["batch"] if batch else [])
    for v in chosen:
        columns += _suffixes(v, types[v])
    rows: list[list[float | int | None]] = []
    for k in range(nsteps):
        per_var = []
        for v in chosen:
            base = tuple(types[v].BASE_SHAPE)
            t = values.get((v, k))
            ncomp = math.prod(base)
            if t is None:
                per_var.append([[None] * ncomp] * nb)
            else:
                per_var.append(t.expand(batch + base).reshape(nb, ncomp).tolist())
        for b in range(nb):
            row: list[Cell] = [k, b] if batch else [k]
            for cols in per_var:
                row += cols[b]
            rows.append(row)
    return History(columns, rows)


def write_csv(history: History, path: str | Path) -> None:
    """Write the table atomically (full float precision; empty cells for unrecorded values)."""
    with atomic_output(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(history.columns)
        for r in history.rows:
            w.writerow(["" if x is None else repr(x) for x in r])


def default_plot_columns(
    history: History, outputs: list[str], types: dict[str, Any], time: str | None
) -> tuple[str, list[str]]:
    """``strain_xx`` vs ``stress_xx`` if both exist, else time (or step) vs the first output."""
    cols = history.columns
    if "strain_xx" in cols and "stress_xx" in cols:
        return "strain_xx", ["stress_xx"]
    x = time if time is not None and time in cols else "step"
    for v in outputs:
        ys = [c for c in _suffixes(v, types[v]) if c in cols]
        if ys:
            return x, ys
    raise ValueError("--plot: nothing to plot (no output variable was recorded)")


def plot_history(history: History, x: str, ys: list[str], path: str | Path) -> None:
    """Plot ``ys`` against ``x`` (one line per column and batch entry) with matplotlib's Agg."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:
        raise RuntimeError(
            f"--plot needs matplotlib ({e}); install it with `pip install 'neml2-models[plot]'`"
        ) from e

    for c in [x, *ys]:
        if c not in history.columns:
            raise ValueError(
                f"--plot: no column '{c}' in the recorded history "
                f"(columns: {', '.join(history.columns)})"
            )
    batched = "batch" in history.columns
    groups: dict[int, list[list[float | int | None]]] = {}
    for r in history.rows:
        groups.setdefault(int(r[1] or 0) if batched else 0, []).append(r)
    fig = Figure(figsize=(6.4, 4.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ix = history.columns.index(x)
    for y in ys:
        iy = history.columns.index(y)
        for b, rows in groups.items():
            pts = [
                (float(xv), float(yv))
                for xv, yv in ((r[ix], r[iy]) for r in rows)
                if xv is not None and yv is not None
            ]
            label = f"{y} [{b}]" if batched else y
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=label)
    ax.set_xlabel(x)
    ax.set_ylabel(ys[0] if len(ys) == 1 else "value")
    if len(ys) * len(groups) <= 12:
        ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    with atomic_output(path, "wb") as fh:
        fig.savefig(fh, format=Path(path).suffix[1:].lower() or None)
