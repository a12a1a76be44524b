"""Run one child process with a timeout; report its wall time and peak memory (``wait4``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any

PREFIX = "RESULT "


@dataclass(frozen=True)
class ProcResult:
    """Exit status, output, wall time (s) and peak resident set (MB) of a finished child."""

    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    wall: float
    maxrss_mb: float
    cpu: float  # user + system seconds of the child (cpu / wall < threads: the machine was busy)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def result(self) -> dict[str, Any] | None:
        """The JSON object of the last ``RESULT`` line of stdout, if any."""
        for line in reversed(self.stdout.splitlines()):
            if line.startswith(PREFIX):
                out: dict[str, Any] = json.loads(line[len(PREFIX) :])
                return out
        return None

    def failure(self) -> str:
        """A one-line reason why the child gave no result."""
        if self.timed_out:
            return f"timed out after {self.wall:.0f} s"
        tail = [ln for ln in self.stderr.strip().splitlines() if ln.strip()]
        return f"exit {self.returncode}: {tail[-1][:160] if tail else 'no output'}"


def thread_env(threads: int) -> dict[str, str]:
    """The environment of a child with ``threads`` OpenMP/MKL threads."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    return env


def run(cmd: list[str], env: dict[str, str], timeout: float, cwd: str | None = None) -> ProcResult:
    """Run ``cmd`` to completion or kill its process group after ``timeout`` seconds."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True
        )
        status: int | None = None
        while True:
            pid, st, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(st)
                break
            if time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                _, _, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        proc.returncode = -1 if status is None else status  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return ProcResult(status, out.read(), err.read(), wall, usage.ru_maxrss / 1024.0, cpu)
