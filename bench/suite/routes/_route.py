"""What a route plug-in provides: availability, per-cell request fields, the command to run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from bench.suite._artifacts import Artifacts
from bench.suite._target import Target
from bench.suite._workloads import Workload


@dataclass(frozen=True)
class Context:
    """What routes may use: the inputs folder and the artifact cache."""

    inputs: Path
    artifacts: Artifacts


class Route:
    """Base of a route plug-in. A Python route runs :mod:`bench.suite.worker` as is."""

    name: ClassVar[str] = ""
    python: ClassVar[bool] = True  # False: runs our build only (not the --compare installation)
    cost: ClassVar[int] = 1  # run order: cheaper routes first (compiling routes later)
    max_threads: ClassVar[int | None] = None  # None: every thread count of the run

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        """Why this route cannot run ``workload``/``mode`` on ``target`` (None: it can)."""
        return None

    def batches(self, workload: Workload, quick: bool) -> tuple[int, ...]:
        """The batch sizes this route runs ``workload`` at."""
        return workload.quick_batches if quick else workload.batches

    def request(self, target: Target, workload: Workload, ctx: Context) -> dict[str, Any] | str:
        """Extra fields of the worker request (e.g. an artifact path), or an n/a reason."""
        return {}

    def command(self, target: Target, request: dict[str, Any]) -> list[str]:
        """The command line of one cell (prints one ``RESULT {json}`` line)."""
        return target.worker(request)
