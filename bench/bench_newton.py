"""Benchmark: the cost of the Newton loop itself (neml2.solvers.Newton + DenseLU).

Problem: the scalar cubic r(x) = x³ + x − c, batched, float64, from x₀ = 0.

Targets (exit status 1 when missed):
* one solve at batch 1 takes < 1 ms (fixed Python overhead of the loop);
* at batch 10⁶ the whole solve costs < 3x evaluating the residual and its Jacobian once
  per Newton iteration (the unavoidable model work), i.e. the loop's own work (norms,
  convergence test, solve, update, host syncs) stays small.

Run: ``.venv/bin/python bench/bench_newton.py [--threads N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import torch

from neml2.es import AssembledMatrix, AssembledVector, AxisLayout
from neml2.solvers import Newton

LAYOUT = AxisLayout.build([[("x", ())]])


class Cubic:
    """r(x) = x³ + x − c; ``b = −r``, ``A = 3x² + 1``."""

    def __init__(self, c: torch.Tensor) -> None:
        self.c = c

    def residual(self, u: AssembledVector) -> AssembledVector:
        x = u.tensors[0]
        return AssembledVector(LAYOUT, [self.c - x - x * x * x])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        x = u.tensors[0]
        return AssembledMatrix(LAYOUT, LAYOUT, [[(3 * x * x + 1).unsqueeze(-1)]])


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Minimum wall time of ``repeat`` calls, seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--large", type=int, default=10**6, help="large batch size")
    ap.add_argument("--quick", action="store_true", help="batch 10^5 and fewer repeats")
    args = ap.parse_args()
    if args.quick:
        args.large, args.repeat = min(args.large, 10**5), min(args.repeat, 3)
    torch.set_num_threads(args.threads)
    solver = Newton()

    # --- batch 1: fixed overhead
    c1 = torch.full((1, 1), 7.0, dtype=torch.float64)
    p1 = Cubic(c1)
    u1 = AssembledVector(LAYOUT, [torch.zeros_like(c1)])
    _, res1 = solver.solve(p1, u1)
    for _ in range(20):  # warm up
        solver.solve(p1, u1)
    t_small = best_of(lambda: solver.solve(p1, u1), max(args.repeat, 50))

    # --- batch 10^6: loop cost vs model cost
    g = torch.Generator().manual_seed(0)
    c = 20 * torch.rand(args.large, 1, generator=g, dtype=torch.float64) - 10
    p = Cubic(c)
    u0 = AssembledVector(LAYOUT, [torch.zeros_like(c)])
    _, res = solver.solve(p, u0)
    n = res.iterations
    # the iterates the solve visits, for a like-for-like model-only reference
    iterates = [u0]
    for _ in range(n - 1):
        u_i = iterates[-1]
        du = solver.linear_solver.solve(p.jacobian(u_i), p.residual(u_i))
        iterates.append(u_i + du)

    def model_work() -> None:
        """Residual and Jacobian once per iteration, each kept alive for one iteration."""
        for u_i in iterates:
            b = p.residual(u_i)
            A = p.jacobian(u_i)
        del b, A

    # interleave the two measurements so machine load affects both alike
    t_solve = t_model = float("inf")
    for _ in range(args.repeat):
        t_solve = min(t_solve, best_of(lambda: solver.solve(p, u0), 1))
        t_model = min(t_model, best_of(model_work, 1))
    ratio = t_solve / t_model
    ok_small = t_small < 1e-3
    ok_ratio = ratio < 3.0
    print(f"threads={args.threads}")
    print(f"batch 1:      {res1.iterations} iterations, solve {t_small * 1e3:.3f} ms "
          f"(target < 1 ms) {'OK' if ok_small else 'MISSED'}")  # fmt: skip
    print(f"batch {args.large}: {n} iterations, solve {t_solve * 1e3:.1f} ms, "
          f"residual+Jacobian x{n} {t_model * 1e3:.1f} ms")  # fmt: skip
    print(f"ratio solve / (residual+Jacobian per iteration) = {ratio:.2f} (target < 3) "
          f"{'OK' if ok_ratio else 'MISSED'}")  # fmt: skip
    return 0 if ok_small and ok_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
