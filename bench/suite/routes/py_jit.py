"""py-jit: ``neml2.compile(model)`` in the cell's process; the warm-up call compiles.

Each cell compiles its own graph (``dynamic=False``: one graph per batch size; 10-120 s a cell
on this machine, most of a full run's time), so ``--quick`` runs py-jit at one batch per
workload (the second quick one), and a full run at one thread and from batch 10^3 up (at batch 1
a cell is its compile: the first-call column of the other batches reports that cost).
"""

from __future__ import annotations

from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes._route import Route


class PyJit(Route):
    name = "py-jit"
    cost = 3
    max_threads = 1

    def batches(self, workload: Workload, quick: bool) -> tuple[int, ...]:
        return workload.quick_batches[1:2] if quick else workload.batches[1:]

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        return None if target.info.get("compile") else "neml2.compile is missing"
