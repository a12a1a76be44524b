"""Benchmark: the J2 Chaboche viscoplastic ``ImplicitUpdate`` (py-eager) vs NEML2 v3 py-eager.

Workloads (``scenarios/chaboche.i``, float64, one torch thread; the v3 numbers
are the py-eager row of the shared benchmark README; target: at least 5x faster):

* one step: a 1 % uniaxial strain increment over dt = 1 from a zero state, batch 10^3 and 10^5;
* step + jacobian: the same step with the Jacobian of every output w.r.t. every input, 10^4;
* the 100-step driver (``chaboche_driver.i``, strain ramp to 10 % over 1e5 s), batch 10^3.

Prints our time (median wall time of repeats, and its process CPU time), v3's, the ratio (wall)
and pass/fail; exits non-zero on a miss.
``--quick`` uses smaller batches (v3 numbers scaled linearly, informational) and never fails.

Run: ``.venv/bin/python bench/bench_chaboche.py [--quick] [--inputs DIR]``.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

import neml2
from neml2.tensors import SR2, Scalar

INPUTS = Path(__file__).resolve().parents[1] / "scenarios"  # the shared workloads
SPEEDUP = 5.0
# NEML2 v3 py-eager (bench/README.md), seconds
V3 = {
    ("step", 1_000): 0.119,
    ("step", 10_000): 0.574,
    ("step", 100_000): 5.54,
    ("step+jacobian", 1_000): 0.169,
    ("step+jacobian", 10_000): 1.25,
    ("driver", 100): 14.5,
    ("driver", 1_000): 13.5,
}


def step_inputs(n: int) -> dict[str, object]:
    """1 % uniaxial strain increment over dt = 1 from a zero state, batch ``n``."""
    f64 = torch.float64
    eps = torch.zeros(n, 6, dtype=f64)
    eps[:, 0] = 0.01
    eps[:, 1] = eps[:, 2] = -0.005
    z6 = torch.zeros(n, 6, dtype=f64)
    return {
        "strain": SR2(eps),
        "strain~1": SR2(z6.clone()),
        "t": Scalar(torch.ones(n, dtype=f64)),
        "t~1": Scalar(torch.zeros(n, dtype=f64)),
        "stress~1": SR2(z6.clone()),
        "equivalent_plastic_strain~1": Scalar(torch.zeros(n, dtype=f64)),
        "X1~1": SR2(z6.clone()),
        "X2~1": SR2(z6.clone()),
    }


def median_time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and process-CPU times of ``repeat`` calls after one warm-up call, seconds.

    On a shared machine the CPU time shows how much of the wall time was our own work.
    """
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def fmt(t: float) -> str:
    return f"{t * 1e3:9.1f} ms" if t < 1.0 else f"{t:9.2f} s "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches, report only")
    ap.add_argument("--inputs", type=Path, default=INPUTS, help="workload input files directory")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model_text = (args.inputs / "chaboche.i").read_text()
    model = neml2.load_string(model_text).get_model("model")
    q = args.quick
    work: list[tuple[str, int, int, Callable[[], object]]] = []
    for n, rep in ((1_000, 9), (10_000, 5)) if q else ((1_000, 15), (100_000, 3)):
        work.append(("step", n, rep, functools.partial(model.call_by_name, step_inputs(n))))
    nj = 1_000 if q else 10_000
    xj = step_inputs(nj)
    work.append(("step+jacobian", nj, 3 if q else 5, lambda: model.jacobian(xj)))
    nd = 100 if q else 1_000
    driver_text = (args.inputs / "chaboche_driver.i").read_text().replace("${nbatch}", str(nd))

    def drive() -> None:
        neml2.load_string(model_text + driver_text).get_driver("driver").run()

    work.append(("driver", nd, 1 if q else 3, drive))

    ok = True
    print(f"chaboche py-eager (float64, {args.threads} thread(s)); target >= {SPEEDUP:g}x v3")
    print(
        f"{'workload':16s} {'batch':>8s} {'neml2':>12s} {'(cpu)':>12s} {'v3':>12s} "
        f"{'speedup':>8s}  status"
    )
    for name, n, rep, fn in work:
        t, c = median_time(fn, rep)
        v3 = V3.get((name, n))
        if v3 is None:  # quick mode: scale the nearest v3 row linearly (informational)
            ref_n = min((k[1] for k in V3 if k[0] == name), key=lambda m: abs(m - n))
            v3 = V3[(name, ref_n)] * n / ref_n
            status = "(info, v3 scaled)"
        else:
            passed = v3 / t >= SPEEDUP
            ok &= passed
            status = "PASS" if passed else "FAIL"
        print(f"{name:16s} {n:8,d} {fmt(t)}  {fmt(c)}  {fmt(v3)}  {v3 / t:7.1f}x  {status}")
    if q:
        return 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
