"""Run every cell of the plan in its own process, time-boxed.

Order: threads, then batch size (ascending), then route (cheapest first: eager, compiled,
py-jit), workload and mode, then target, so the two installations of one cell run back to back
and every route is measured at small batches before any route runs a large one: the run's time
limit only ever cuts the largest batches. A cell is skipped ("n/a") when its route cannot run it,
when its row's previous batch extrapolates (linearly, from batch >= 1000) past the cell cap, when
a smaller batch of the same row failed, when the same route timed out on the same model (a py-jit
compile that does not finish is not retried for other modes, threads or the driver), or when the
run's time limit is spent.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

from bench.suite import _proc
from bench.suite._artifacts import Artifacts
from bench.suite._cells import Cell
from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes import Context, Route


@dataclass(frozen=True)
class Budget:
    """Time boxes (s): per cell, per run; repeats and per-cell timing budget."""

    cell_cap: float
    run_limit: float
    repeat: int
    timing_budget: float


QUICK = Budget(cell_cap=60.0, run_limit=420.0, repeat=7, timing_budget=1.0)
FULL = Budget(cell_cap=240.0, run_limit=2100.0, repeat=15, timing_budget=2.5)


def _model_key(target: Target, route: Route, wl: Workload) -> tuple[str, str, str, str]:
    """Rows sharing one compiled model (the driver runs the chaboche model)."""
    return (target.label, route.name, Artifacts.model_workload(wl), "*")


class Runner:
    """Executes the plan; ``cells`` collects every measured or skipped cell."""

    def __init__(self, ctx: Context, budget: Budget, log: Any = None) -> None:
        self.ctx, self.budget = ctx, budget
        self.log = log or functools.partial(print, flush=True)
        self.cells: list[Cell] = []
        self.t0 = time.perf_counter()
        self._dead: dict[tuple[str, str, str, str], str] = {}

    def run(
        self,
        targets: list[Target],
        routes: tuple[Route, ...],
        workloads: list[Workload],
        threads: list[int],
        quick: bool,
        only_batches: set[int] | None = None,
    ) -> list[Cell]:
        """Every cell, ``only_batches`` (when given) restricting the batch sizes."""
        rows = [(route, wl, mode) for route in sorted(routes, key=lambda r: r.cost)
                for wl in workloads for mode in wl.modes]  # fmt: skip
        prev: dict[tuple[str, str, str, int], dict[str, tuple[int, float]]] = {}
        # cheap (forward-only) workloads first, then the Newton ones batch by batch, every thread
        # count of a batch together: a run cut by its time limit loses the largest batches
        for newton in (False, True):
            group = [r for r in rows if r[1].newton == newton]
            batches = sorted({b for route, wl, _ in group for b in route.batches(wl, quick)})
            batches = [b for b in batches if only_batches is None or b in only_batches]
            for batch in batches:
                for nt in threads:
                    for route, wl, mode in group:
                        if batch in route.batches(wl, quick):
                            row_prev = prev.setdefault((route.name, wl.name, mode, nt), {})
                            self._cell(targets, route, wl, mode, nt, batch, row_prev)
        return self.cells

    def _cell(
        self,
        targets: list[Target],
        route: Route,
        wl: Workload,
        mode: str,
        nt: int,
        batch: int,
        prev: dict[str, tuple[int, float]],
    ) -> None:
        """One cell on every target; ``prev`` holds the row's last measured batch per target."""
        for target in targets:
            if target.label != "ours" and not route.python:
                continue  # C++ routes run our build only
            cell = Cell(target.label, route.name, wl.name, mode, nt, batch)
            reason = self._skip(target, route, wl, mode, nt, batch, prev.get(target.label))
            if reason is None:
                self._measure(cell, target, route, wl, prev)
            else:
                cell.status, cell.reason = "n/a", reason
            self.cells.append(cell)

    def _skip(
        self,
        target: Target,
        route: Route,
        wl: Workload,
        mode: str,
        nt: int,
        batch: int,
        prev: tuple[int, float] | None,
    ) -> str | None:
        if reason := route.unavailable(target, wl, mode):
            return reason
        if route.max_threads is not None and nt > route.max_threads:
            return f"{route.name} runs at {route.max_threads} thread(s) (its compile dominates)"
        if nt > 1 and batch == 1:
            return "one point: a second thread has nothing to share"
        for key in ((target.label, route.name, wl.name, mode), _model_key(target, route, wl)):
            if reason := self._dead.get(key):
                return reason
        if time.perf_counter() - self.t0 > self.budget.run_limit:
            return f"run time limit ({self.budget.run_limit:.0f} s) reached"
        if prev is not None and prev[0] >= 1000:
            est = prev[1] * batch / prev[0]
            if 2 * est > self.budget.cell_cap:
                return f"time box: about {est:.0f} s per call"
        return None

    def _measure(
        self, cell: Cell, target: Target, route: Route, wl: Workload, prev: dict[str, Any]
    ) -> None:
        extra = route.request(target, wl, self.ctx)
        if isinstance(extra, str):
            cell.status, cell.reason = "n/a", extra
            return
        last = prev.get(target.label)
        slow = last is not None and last[1] * cell.batch / last[0] > 2.0
        req = {
            "op": "cell",
            "route": route.name,
            "workload": wl.name,
            "mode": cell.mode,
            "batch": cell.batch,
            "threads": cell.threads,
            "repeat": self.budget.repeat,
            "min_repeat": 1 if slow else 3,
            "budget": self.budget.timing_budget,
            "inputs": str(self.ctx.inputs),
            **extra,
        }
        res = _proc.run(
            route.command(target, req), _proc.thread_env(cell.threads), self.budget.cell_cap
        )
        out = res.result()
        cell.wall, cell.cpu, cell.maxrss_mb = res.wall, res.cpu, res.maxrss_mb
        if out is None or "error" in out:
            cell.status = "n/a"
            cell.reason = out["error"] if out else res.failure()
            if res.timed_out:
                what = f"{wl.name} {cell.mode} at batch {cell.batch:,}"
                reason = f"{what} timed out ({self.budget.cell_cap:.0f} s cap)"
                self._dead[_model_key(target, route, wl)] = reason
            else:
                self._dead[(target.label, route.name, wl.name, cell.mode)] = cell.reason
        else:
            cell.times, cell.first, cell.setup = out["times"], out["first"], out["setup"]
            prev[target.label] = (cell.batch, cell.median)
        state = f"{cell.median * 1e3:.3f} ms" if cell.ok else f"n/a ({cell.reason})"
        self.log(
            f"  {target.label:4s} {route.name:8s} {wl.name:15s} {cell.mode:8s} "
            f"{cell.threads}T {cell.batch:>9,d}: {state}  [{res.wall:.1f} s]"
        )
