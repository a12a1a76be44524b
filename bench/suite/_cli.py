"""``python -m bench.suite [--quick] [--compare PYTHON] [--threads 1 2] ...``.

Writes ``bench-results/bench.json``, ``bench.md`` and ``throughput.png`` and prints the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from dataclasses import asdict
from pathlib import Path

from bench.suite import _limits
from bench.suite._artifacts import Artifacts
from bench.suite._plot import throughput_png
from bench.suite._report import markdown
from bench.suite._run import FULL, QUICK, Runner
from bench.suite._startup import measure_startup
from bench.suite._target import Target, probe
from bench.suite._workloads import WORKLOADS
from bench.suite.routes import ROUTES, Context

ROOT = Path(__file__).resolve().parents[2]


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.suite", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches, 1 thread, < 10 min")
    ap.add_argument("--compare", metavar="PYTHON", help="reference installation's interpreter")
    ap.add_argument("--threads", type=int, nargs="+", help="thread counts (default 1 2; quick 1)")
    ap.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), help="default: all")
    ap.add_argument("--routes", nargs="+", choices=[r.name for r in ROUTES], help="default: all")
    ap.add_argument(
        "--batches", type=int, nargs="+", help="only these of the workloads' batch sizes"
    )
    ap.add_argument(
        "--time-limit", type=float, help="seconds after which no new cell starts (quick 420, 1800)"
    )
    ap.add_argument("--no-startup", action="store_true", help="skip the cold-start rounds")
    ap.add_argument(
        "--inputs", type=Path, default=ROOT / "scenarios", help="the workloads' input files"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench-results")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    args.out, args.inputs = args.out.resolve(), args.inputs.resolve()
    t0 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    targets: list[Target] = [probe("ours")]
    if args.compare:
        targets.append(probe("ref", args.compare))
    threads = args.threads or ([1] if args.quick else [1, 2])
    workloads = [WORKLOADS[n] for n in args.workloads or WORKLOADS]
    routes = tuple(r for r in ROUTES if not args.routes or r.name in args.routes)
    for t in targets:
        print(f"{t.label}: neml2 {t.info['neml2']}, torch {t.info['torch']} ({t.python})")
    print(f"limits and Newton iteration counts ({', '.join(map(str, threads))} thread(s)) ...")
    limits = _limits.measure_limits(targets[0], threads)
    iterations = _limits.newton_iterations(targets[0], workloads, str(args.inputs))
    artifacts = Artifacts(args.out / "artifacts", args.inputs, args.quick)
    budget = QUICK if args.quick else FULL
    if args.time_limit is not None:
        budget = dataclasses.replace(budget, run_limit=args.time_limit)
    runner = Runner(Context(args.inputs, artifacts), budget)
    only = set(args.batches) if args.batches else None
    cells = runner.run(targets, routes, workloads, threads, args.quick, only)
    startup = {}
    if not args.no_startup:
        print("cold start ...")
        startup = measure_startup(targets, Context(args.inputs, artifacts), args.out / "pycache")
    records = list(artifacts.records.values())
    data = {
        "meta": {
            "mode": "quick" if args.quick else "full",
            "host": platform.node(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "wall": time.perf_counter() - t0,
            "targets": {t.label: t.info for t in targets},
            "threads": threads,
        },
        "limits": limits,
        "iterations": iterations,
        "startup": startup,
    }
    text = markdown(data, cells, records)
    data["cells"] = [asdict(c) for c in cells]
    data["compile"] = [asdict(r) for r in records]
    (args.out / "bench.json").write_text(json.dumps(data, indent=1))
    (args.out / "bench.md").write_text(text)
    throughput_png(cells, args.out / "throughput.png")
    print(text)
    print(f"wrote {args.out / 'bench.md'}, bench.json, throughput.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
