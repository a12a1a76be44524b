"""The markdown table (``bench.md``): limits, work counts, times, fractions, comparison."""

from __future__ import annotations

from typing import Any

from bench.suite._artifacts import CompileRecord
from bench.suite._cells import Cell
from bench.suite._format import batch, rate, seconds
from bench.suite._workloads import WORKLOADS
from bench.suite.routes import ROUTES

BOUND_LIMIT = {"bytes": ("copy_Bps", "B"), "flops": ("matmul_flops", "FLOP")}


class Notes:
    """Numbered footnotes for n/a reasons (one number per distinct reason)."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def ref(self, reason: str) -> str:
        if reason not in self.items:
            self.items.append(reason)
        return f"n/a[{self.items.index(reason) + 1}]"

    def lines(self) -> list[str]:
        return [f"[{i}] {r}" for i, r in enumerate(self.items, 1)]


def _rows(cells: list[Cell]) -> dict[tuple[str, str, str, str, int], dict[int, Cell]]:
    """Cells by row in table order: workload, mode, route (``ROUTES``), threads, installation."""
    order = {r.name: i for i, r in enumerate(ROUTES)}
    names = list(WORKLOADS)

    def key(c: Cell) -> tuple[int, int, int, int, str]:
        mode = WORKLOADS[c.workload].modes.index(c.mode)
        return (names.index(c.workload), mode, order.get(c.route, 99), c.threads, c.target)

    rows: dict[tuple[str, str, str, str, int], dict[int, Cell]] = {}
    for c in sorted(cells, key=key):
        rows.setdefault(c.row, {})[c.batch] = c
    return rows


def work_per_point(name: str, mode: str, iterations: dict[str, Any]) -> float | None:
    count = iterations.get(name, {}).get("iterations")
    return WORKLOADS[name].work_per_point(mode, count)


def fraction(
    row: dict[int, Cell], iterations: dict[str, Any], limits: dict[int, dict[str, Any]]
) -> str:
    """Achieved rate at the largest measured batch over the limit the workload is bound by."""
    ok = [c for c in row.values() if c.ok]
    if not ok:
        return "-"
    c = max(ok, key=lambda x: x.batch)
    work = work_per_point(c.workload, c.mode, iterations)
    key, unit = BOUND_LIMIT[WORKLOADS[c.workload].bound]
    limit = limits.get(c.threads, {}).get(key)
    if work is None or not limit:
        return "-"
    achieved = work * c.batch / c.median
    return f"{100 * achieved / limit:.3g} % ({rate(achieved, unit)} at {batch(c.batch)})"


def _time_cell(c: Cell | None, notes: Notes) -> str:
    if c is None:
        return ""
    if not c.ok:
        return notes.ref(c.reason)
    lo, hi = c.spread
    return f"{seconds(c.median)} ({seconds(lo)}–{seconds(hi)})"


def times_table(
    cells: list[Cell],
    iterations: dict[str, Any],
    limits: dict[int, dict[str, Any]],
    notes: Notes,
) -> list[str]:
    out: list[str] = []
    rows = _rows(cells)
    for name, wl in WORKLOADS.items():
        for mode in wl.modes:
            keys = [k for k in rows if k[0] == name and k[1] == mode]
            if not keys:
                continue
            sizes = sorted({b for k in keys for b in rows[k]})
            out += [f"### {wl.title}, {mode}", ""]
            head = ["route", "install", "thr", *map(batch, sizes)]
            head += ["of limit", "first call", "peak MB"]
            out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            for k in keys:
                row = rows[k]
                ok = [c for c in row.values() if c.ok]
                first = seconds(min(ok, key=lambda c: c.batch).first) if ok else "-"
                peak = f"{max(c.maxrss_mb for c in ok):.0f}" if ok else "-"
                vals = [_time_cell(row.get(b), notes) for b in sizes]
                frac = fraction(row, iterations, limits)
                line = [k[2], k[3], str(k[4]), *vals, frac, first, peak]
                out.append("| " + " | ".join(line) + " |")
            out.append("")
    return out


def comparison_table(cells: list[Cell]) -> list[str]:
    """ref / ours per cell where both ran (> 1: ours is faster)."""
    rows = _rows(cells)
    pairs = [
        (k, rows[k], rows.get((k[0], k[1], k[2], "ref", k[4]))) for k in rows if k[3] == "ours"
    ]
    sizes = sorted({c.batch for c in cells})
    head = ["workload", "mode", "route", "thr", *map(batch, sizes)]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, ours, ref in pairs:
        if ref is None:
            continue
        vals = []
        for b in sizes:
            o, r = ours.get(b), ref.get(b)
            if o is not None and r is not None and o.ok and r.ok:
                vals.append(
                    f"{r.median / o.median:.3g}x ({seconds(r.median)} / {seconds(o.median)})"
                )
            else:
                vals.append("" if o is None else "-")
        if any(v not in ("", "-") for v in vals):
            out.append("| " + " | ".join([k[0], k[1], k[2], str(k[4]), *vals]) + " |")
    return out


def limits_table(limits: dict[int, dict[str, Any]]) -> list[str]:
    head = "| threads | copy | matmul 2048^3 | batched 19x19 matmul | batched 19x19 solve |"
    out = [head, "|---|---|---|---|---|"]
    for nt, lim in sorted(limits.items()):
        if "error" in lim:
            out.append(f"| {nt} | {lim['error']} | | | |")
            continue
        out.append(
            f"| {nt} | {rate(lim['copy_Bps'], 'B')} | {rate(lim['matmul_flops'], 'FLOP')} | "
            f"{rate(lim['bmm19_flops'], 'FLOP')} | {rate(lim['solve19_flops'], 'FLOP')} |"
        )
    return out


def work_table(iterations: dict[str, Any]) -> list[str]:
    out = [
        "| workload | mode | bound | work per point | Newton iterations |",
        "|---|---|---|---|---|",
    ]
    for name, wl in WORKLOADS.items():
        for mode in wl.modes:
            w = work_per_point(name, mode, iterations)
            its = iterations.get(name, {}).get("iterations", "-") if wl.newton else "-"
            unit = "B" if wl.bound == "bytes" else "flop"
            shown = f"{w:,.0f} {unit}" if w is not None else "unknown"
            out.append(f"| {wl.title} | {mode} | {wl.bound} | {shown} | {its} |")
    return out


def compile_table(records: list[CompileRecord]) -> list[str]:
    out = ["| install | artifact | neml2-compile | peak MB |", "|---|---|---|---|"]
    for r in records:
        t = (
            f"{r.seconds:.1f} s" + (" (cached)" if r.cached else "")
            if r.status == "ok"
            else r.reason
        )
        peak = f"{r.maxrss_mb:.0f}" if r.status == "ok" else "-"
        out.append(f"| {r.target} | {r.workload} | {t} | {peak} |")
    return out


def startup_table(startup: dict[str, dict[str, Any]], cells: list[Cell]) -> list[str]:
    """Cold start to the first Chaboche step at batch 1 and neml2's share of it (beyond a bare
    ``import torch``); cpp-aoti: load plus first call as the program times them."""
    out = ["| install | route | process start to first result | neml2's share |"]
    out.append("|---|---|---|---|")
    for label, routes in startup.items():
        for name, r in routes.items():
            if "error" in r:
                out.append(f"| {label} | {name} | {r['error']} | |")
                continue
            share = "" if r["share"] is None else seconds(r["share"])
            out.append(
                f"| {label} | {name} | {seconds(r['median'])} ({r['runs']} runs) | {share} |"
            )
    for c in cells:
        if (c.route, c.workload, c.mode, c.batch, c.threads) == ("cpp-aoti", "chaboche", "forward",
                                                                1, 1) and c.ok:  # fmt: skip
            load = seconds(c.setup + c.first)
            out.append(f"| {c.target} | cpp-aoti (load + first call) | | {load} |")
    return out


def markdown(data: dict[str, Any], cells: list[Cell], records: list[CompileRecord]) -> str:
    meta, limits, its = data["meta"], data["limits"], data["iterations"]
    notes = Notes()
    out = ["# neml2 benchmarks", ""]
    for label, info in meta["targets"].items():
        out.append(f"- {label}: neml2 {info['neml2']}, torch {info['torch']} ({info['python']})")
    out += [f"- mode: {meta['mode']}, wall time {meta['wall']:.0f} s, float64, CPU", ""]
    out += ["## Machine limits (this run)", "", *limits_table(limits), ""]
    out += ["## Work per point", "", *work_table(its), ""]
    out += ["## Time per call: median (min–max)", ""]
    out += times_table(cells, its, limits, notes)
    if "ref" in meta["targets"]:
        out += ["## Reference comparison: ref / ours time (> 1: ours faster)", ""]
        out += [*comparison_table(cells), ""]
    if records:
        out += ["## Compiled artifacts", "", *compile_table(records), ""]
    if data.get("startup"):
        out += ["## Cold start (Chaboche, batch 1, 1 thread)", ""]
        out += [*startup_table(data["startup"], cells), ""]
    if notes.items:
        out += ["## n/a reasons", "", *notes.lines(), ""]
    return "\n".join(out)
