"""An installation to benchmark: its Python interpreter and what it offers (``probe``)."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.suite import _proc

WORKER = Path(__file__).resolve().with_name("worker.py")


@dataclass(frozen=True)
class Target:
    """``label`` is ``"ours"`` or ``"ref"``; ``info`` is the worker's probe answer."""

    label: str
    python: str
    info: dict[str, Any] = field(default_factory=dict)

    def worker(self, request: dict[str, Any]) -> list[str]:
        """Command line that runs one worker request with this interpreter."""
        return [self.python, str(WORKER), json.dumps(request)]

    @property
    def key(self) -> str:
        """Cache key of this installation's compiled artifacts (interpreter, versions and the
        fingerprint of its neml2 files)."""
        env = Path(self.python).parent.parent  # the environment (python and python3 agree)
        info = self.info
        text = f"{env}|{info.get('torch')}|{info.get('neml2')}|{info.get('fingerprint')}"
        return f"{self.label}-{hashlib.sha1(text.encode()).hexdigest()[:10]}"


def probe(label: str, python: str | None = None) -> Target:
    """Ask ``python`` (default: this interpreter) what it offers; raise if it cannot run."""
    exe = python or sys.executable
    if not Path(exe).exists():
        raise SystemExit(f"bench: --compare interpreter '{exe}' does not exist")
    res = _proc.run([exe, str(WORKER), json.dumps({"op": "probe"})], _proc.thread_env(1), 120.0)
    info = res.result()
    if info is None or "error" in info:
        why = info["error"] if info else res.failure()
        raise SystemExit(f"bench: cannot import neml2 with '{exe}': {why}")
    return Target(label, exe, info)
