"""The physical limits and the work counts, measured in the same run as the cells."""

from __future__ import annotations

from typing import Any

from bench.suite import _proc
from bench.suite._target import Target
from bench.suite._workloads import Workload


def measure_limits(target: Target, threads: list[int]) -> dict[int, dict[str, Any]]:
    """``{threads: {copy_Bps, matmul_flops, bmm19_flops, solve19_flops}}`` (or ``{error}``)."""
    out: dict[int, dict[str, Any]] = {}
    for nt in threads:
        req = {"op": "limits", "threads": nt}
        res = _proc.run(target.worker(req), _proc.thread_env(nt), 300.0)
        out[nt] = res.result() or {"error": res.failure()}
    return out


def newton_iterations(target: Target, workloads: list[Workload], inputs: str) -> dict[str, Any]:
    """Newton iterations per point of each Newton workload (summed over the driver's steps)."""
    out: dict[str, Any] = {}
    for wl in workloads:
        if not wl.newton:
            continue
        req = {"op": "iterations", "workload": wl.name, "inputs": inputs}
        res = _proc.run(target.worker(req), _proc.thread_env(1), 300.0)
        out[wl.name] = res.result() or {"error": res.failure()}
    return out
