"""Benchmark: py-jit (``neml2.compile``) vs py-eager forward of the Chaboche residual model.

Workload: ``[Models]/implicit_rate`` of ``scenarios/chaboche.i``, float64, one torch thread,
batch 10^5 (``--quick``: 10^4), random state near a 1 % strain increment over dt = 1. Times the
value-only forward and the forward with the Jacobian w.r.t. the unknowns
(``ModelNonlinearSystem.residual_and_jacobian``); prints the median wall times and the ratio
eager/jit; the value forward must be at least 2x faster (exit 1 on a miss; ``--quick`` never
fails). Compilation is done before timing.

Run: ``.venv/bin/python bench/bench_jit.py [--quick] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import neml2

ROOT = Path(__file__).resolve().parents[1]
CHABOCHE = ROOT / "scenarios" / "chaboche.i"  # the shared workload
SPEEDUP = 2.0


def _inputs(model: Any, n: int) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    out = {}
    for name, cls in model.input_spec.items():
        x = torch.rand(n, *cls.BASE_SHAPE, generator=gen, dtype=torch.float64)
        if name == "t":
            x = x + 1.0
        elif name != "t~1":
            x = 1e-2 * x
        out[name] = x
    return out


def _time(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="batch 10^4, informational only")
    ap.add_argument("--repeat", type=int, default=5, help="timed repeats (median reported)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    n = 10_000 if args.quick else 100_000
    eager, jit = (neml2.load_nonlinear_system(CHABOCHE, "eq_sys") for _ in "ab")
    neml2.compile(jit)
    x = _inputs(eager.model, n)
    for sys_ in (eager, jit):
        sys_.initialize({k: x[k] for k in sys_.given_names})
    u = eager.pack_unknowns({k: x[k] for k in eager.unknown_names})
    ok = True
    with torch.no_grad():
        t0 = time.perf_counter()
        jit.residual(u)
        jit.residual_and_jacobian(u)
        print(f"compile (value + jacobian graphs): {time.perf_counter() - t0:.1f} s")
        rows: list[tuple[str, Callable[[Any], Any]]] = [
            ("forward", lambda s: s.residual(u)),
            ("forward+jacobian", lambda s: s.residual_and_jacobian(u)),
        ]
        for label, fn in rows:
            te = _time(functools.partial(fn, eager), args.repeat)
            tj = _time(functools.partial(fn, jit), args.repeat)
            ratio = te / tj
            need = label == "forward" and not args.quick
            verdict = ("PASS" if ratio >= SPEEDUP else "FAIL") if need else "info"
            ok = ok and (not need or ratio >= SPEEDUP)
            print(
                f"chaboche residual {label:16s} batch {n:>7d}: eager {te * 1e3:9.2f} ms  "
                f"jit {tj * 1e3:9.2f} ms  ratio {ratio:5.2f}x  [{verdict}]"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
