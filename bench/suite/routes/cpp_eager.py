"""cpp-eager: ``neml2::eager::load_model`` from C++ (``bench/cpp/bench_eager.cpp``).

The program embeds CPython; ``VIRTUAL_ENV`` (the target's ``sys.prefix``) selects the
environment whose neml2 it imports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes import _cpp_build
from bench.suite.routes._route import Context, Route

ARGS = ("model", "mode", "batch", "threads", "repeat", "min_repeat", "budget")


class CppEager(Route):
    name = "cpp-eager"
    python = False

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        if workload.name == "chaboche_driver":
            return "no C++ driver (the drivers are Python)"
        return None

    def request(self, target: Target, workload: Workload, ctx: Context) -> dict[str, Any] | str:
        folder = ctx.artifacts.root.parent / "cpp-build"
        if reason := _cpp_build.build(target, folder):
            return reason
        exe = folder / "bench_eager"
        if not exe.exists():
            return "neml2-eager-cpp (libneml2_eager.so) or an embeddable Python was not found"
        return {"exe": str(exe), "model": str(ctx.inputs / f"{workload.name}.i")}

    def command(self, target: Target, request: dict[str, Any]) -> list[str]:
        venv = Path(target.python).parents[1]  # <venv>/bin/python
        return ["env", f"VIRTUAL_ENV={venv}", request["exe"], *(str(request[k]) for k in ARGS)]
