"""One measured (or skipped) cell of the table and its statistics."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Cell:
    """``target`` x ``route`` x ``workload`` x ``mode`` x ``threads`` x ``batch``.

    ``times``: the timed calls (s); ``first``: the warm-up call (includes py-jit compilation);
    ``setup``: loading; ``maxrss_mb``: the cell process's peak resident memory; ``cpu`` /
    ``wall`` of the process shows how much of the core(s) it got on a shared machine.
    """

    target: str
    route: str
    workload: str
    mode: str
    threads: int
    batch: int
    status: str = "ok"  # "ok" or "n/a"
    reason: str = ""
    times: list[float] = field(default_factory=list)
    first: float = 0.0
    setup: float = 0.0
    maxrss_mb: float = 0.0
    wall: float = 0.0  # the cell process's wall time
    cpu: float = 0.0  # and its CPU time

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def spread(self) -> tuple[float, float]:
        return min(self.times), max(self.times)

    @property
    def row(self) -> tuple[str, str, str, str, int]:
        return (self.workload, self.mode, self.route, self.target, self.threads)
