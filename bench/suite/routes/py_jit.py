"""py-jit: ``neml2.compile(model)`` in the cell's process; the warm-up call compiles.

Each cell compiles its own graph (``dynamic=False``: one graph per batch size; 10-70 s a cell
on this machine), so ``--quick`` runs py-jit at one batch per workload (the second quick one).
"""

from __future__ import annotations

from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes._route import Route


class PyJit(Route):
    name = "py-jit"
    cost = 3

    def batches(self, workload: Workload, quick: bool) -> tuple[int, ...]:
        return workload.quick_batches[1:2] if quick else workload.batches

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        return None if target.info.get("compile") else "neml2.compile is missing"
