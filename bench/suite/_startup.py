"""Cold start: a fresh process to the first result, and neml2's share of it.

For each installation and Python route (py-eager; py-aoti where its Chaboche artifact exists),
a worker ``cell`` request with no timed calls: interpreter start, ``import torch``, the import
of neml2, loading the Chaboche model (or artifact) and one forward step at batch 1, then exit.
A bare ``python -c "import torch"`` is timed in the same round; the requests of a round run
back to back, :data:`ROUNDS` rounds after an untimed one, and each route's share is the median
over rounds of its wall time minus the round's bare import. Python reads and writes bytecode
caches under ``pycache`` (``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says), as
an installed wheel has them: the untimed round writes them. The C++ share (cpp-aoti: load plus first call, as the
program times them; the process start of a C++ program is not neml2's) comes from the cells.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from bench.suite import _proc
from bench.suite._target import Target
from bench.suite._workloads import WORKLOADS
from bench.suite.routes import ROUTES, Context

#: Rounds of (bare import, each route) per installation.
ROUNDS = 7
WORKLOAD = "chaboche"
ROUTE_NAMES = ("py-eager", "py-aoti")
BARE = "import torch"


def _requests(target: Target, ctx: Context) -> dict[str, list[str]]:
    """``{name: command}``: the bare import and each available route's cold call."""
    wl = WORKLOADS[WORKLOAD]
    cmds = {BARE: [target.python, "-c", "import torch"]}
    for route in ROUTES:
        if route.name not in ROUTE_NAMES or route.unavailable(target, wl, "forward"):
            continue
        extra = route.request(target, wl, ctx)
        if isinstance(extra, str):
            continue
        req = {
            "op": "cell", "route": route.name, "workload": WORKLOAD, "mode": "forward",
            "batch": 1, "threads": 1, "repeat": 0, "min_repeat": 0, "budget": 0.0,
            "inputs": str(ctx.inputs), **extra,
        }  # fmt: skip
        cmds[route.name] = route.command(target, req)
    return cmds


def measure_startup(
    targets: list[Target], ctx: Context, pycache: Path
) -> dict[str, dict[str, Any]]:
    """``{label: {name: {"median": s, "share": s or None, "runs": n} or {"error": why}}}``."""
    env = {**_proc.thread_env(1), "PYTHONPYCACHEPREFIX": str(pycache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out: dict[str, dict[str, Any]] = {}
    for target in targets:
        cmds = _requests(target, ctx)
        for cmd in cmds.values():  # the untimed round: bytecode caches, page cache
            _proc.run(cmd, env, 120.0)
        walls: dict[str, list[float]] = {name: [] for name in cmds}
        shares: dict[str, list[float]] = {name: [] for name in cmds if name != BARE}
        errors: dict[str, str] = {}
        for _ in range(ROUNDS):
            bare = None
            for name, cmd in cmds.items():
                res = _proc.run(cmd, env, 120.0)
                result = res.result()
                failed = res.returncode != 0 or (name != BARE and (not result or "error" in result))
                if failed:
                    errors[name] = (result or {}).get("error") or res.failure()
                    continue
                walls[name].append(res.wall)
                if name == BARE:
                    bare = res.wall
                elif bare is not None:
                    shares[name].append(res.wall - bare)
        out[target.label] = {
            name: {"error": errors[name]}
            if not walls[name]
            else {
                "median": statistics.median(walls[name]),
                "share": statistics.median(shares[name]) if shares.get(name) else None,
                "runs": len(walls[name]),
            }
            for name in cmds
        }
    return out
