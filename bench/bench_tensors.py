"""Benchmark neml2.tensors against hand-written raw torch at batch 10^6 (float64, 1 thread).

Prints ``op | neml2 ms | raw torch ms | ratio`` (median of repeats) and exits non-zero
if any ratio exceeds the gate (default 1.5). Also reports the per-call Python overhead
of ``SR2 + SR2`` at batch 1.

    python bench/bench_tensors.py [--n 1000000] [--repeats 15] [--gate 1.5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable

import torch

from neml2.tensors import R2, SR2, SSR4, dev, inv, norm

S = 1.0 / math.sqrt(2.0)


def raw_dev(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    out[:, :3] -= x[:, :3].mean(-1, keepdim=True)
    return out


def raw_norm(x: torch.Tensor) -> torch.Tensor:
    return torch.sqrt((x * x).sum(-1))


def raw_sr2_inv(x: torch.Tensor) -> torch.Tensor:
    """Cofactor inverse of the symmetric matrix [[a, f, e], [f, b, d], [e, d, c]] (Mandel in/out)."""
    a, b, c = x[:, 0], x[:, 1], x[:, 2]
    d, e, f = x[:, 3] * S, x[:, 4] * S, x[:, 5] * S
    A = b * c - d * d
    B = a * c - e * e
    C = a * b - f * f
    D = e * f - a * d
    E = d * f - b * e
    F = d * e - c * f
    det = a * A + f * F + e * E
    return torch.stack([A, B, C, D / S, E / S, F / S], dim=-1) / det.unsqueeze(-1)


def raw_r2_inv(m: torch.Tensor) -> torch.Tensor:
    a, b, c = m[:, 0, 0], m[:, 0, 1], m[:, 0, 2]
    d, e, f = m[:, 1, 0], m[:, 1, 1], m[:, 1, 2]
    g, h, i = m[:, 2, 0], m[:, 2, 1], m[:, 2, 2]
    A, B, C = e * i - f * h, f * g - d * i, d * h - e * g
    det = a * A + b * B + c * C
    adj = torch.stack(
        [
            A,
            c * h - b * i,
            b * f - c * e,
            B,
            a * i - c * g,
            c * d - a * f,
            C,
            b * g - a * h,
            a * e - b * d,
        ],
        dim=-1,
    )
    return (adj / det.unsqueeze(-1)).reshape(-1, 3, 3)


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def overhead_us(calls: int = 100000) -> tuple[float, float]:
    a = SR2(torch.rand(1, 6, dtype=torch.float64))
    b = SR2(torch.rand(1, 6, dtype=torch.float64))
    ad, bd = a.data, b.data

    def per_call(fn: Callable[[], object]) -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) / calls * 1e6

    wrapped = min(per_call(lambda: a + b) for _ in range(3))
    raw = min(per_call(lambda: ad + bd) for _ in range(3))
    return wrapped, wrapped - raw


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--gate", type=float, default=1.5)
    p.add_argument("--quick", action="store_true", help="fewer repeats (same batch size)")
    args = p.parse_args()
    if args.quick:
        args.repeats = min(args.repeats, 5)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    n = args.n
    f64 = torch.float64
    x = torch.rand(n, 6, dtype=f64) + torch.tensor([2.0, 2.0, 2.0, 0.0, 0.0, 0.0], dtype=f64)
    m = torch.rand(n, 3, 3, dtype=f64) + 2.0 * torch.eye(3, dtype=f64)
    cb = torch.rand(n, 6, 6, dtype=f64)
    c1 = torch.rand(6, 6, dtype=f64)
    xs, ms, cbs, c1s = SR2(x), R2(m), SSR4(cb), SSR4(c1)

    cases: list[
        tuple[str, Callable[[], object], Callable[[], object], torch.Tensor, torch.Tensor]
    ] = [
        ("SR2 dev", lambda: dev(xs), lambda: raw_dev(x), dev(xs).data, raw_dev(x)),
        ("SR2 norm", lambda: norm(xs), lambda: raw_norm(x), norm(xs).data, raw_norm(x)),
        (
            "SSR4(N) @ SR2",
            lambda: cbs @ xs,
            lambda: torch.einsum("nij,nj->ni", cb, x),
            (cbs @ xs).data,
            torch.einsum("nij,nj->ni", cb, x),
        ),
        ("SSR4(1) @ SR2", lambda: c1s @ xs, lambda: x @ c1.T, (c1s @ xs).data, x @ c1.T),
        ("SR2 inv", lambda: inv(xs), lambda: raw_sr2_inv(x), inv(xs).data, raw_sr2_inv(x)),
        ("R2 inv", lambda: inv(ms), lambda: raw_r2_inv(m), inv(ms).data, raw_r2_inv(m)),
    ]
    print(f"batch {n}, float64, threads {torch.get_num_threads()}, median of {args.repeats}")
    print(f"{'op':<16}| {'neml2 ms':>9} | {'raw torch ms':>12} | {'ratio':>6}")
    print("-" * 52)
    worst = 0.0
    for name, ours, raw, got, ref in cases:
        if not torch.allclose(got, ref, rtol=1e-10, atol=1e-10):
            print(f"{name}: results differ from the raw-torch reference", file=sys.stderr)
            return 2
        t_ours = median_ms(ours, args.repeats)
        t_raw = median_ms(raw, args.repeats)
        ratio = t_ours / t_raw
        worst = max(worst, ratio)
        print(f"{name:<16}| {t_ours:>9.2f} | {t_raw:>12.2f} | {ratio:>6.2f}")
    total, over = overhead_us()
    print(
        f"\nSR2 + SR2 at batch 1: {total:.2f} us per call, {over:.2f} us Python overhead over raw torch"
    )
    if worst > args.gate:
        print(f"FAIL: worst ratio {worst:.2f} exceeds gate {args.gate}", file=sys.stderr)
        return 1
    print(f"OK: worst ratio {worst:.2f} <= {args.gate}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
