"""cpp-aoti: ``neml2::aoti::Model`` from C++ (``bench/cpp/bench_aoti.cpp``) on a compiled artifact.

Uses the same artifact as py-aoti; the program prints the worker's ``RESULT`` line.
"""

from __future__ import annotations

from typing import Any

from bench.suite._artifacts import Artifact
from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes import _cpp_build
from bench.suite.routes._route import Context, Route

ARGS = ("artifact", "mode", "batch", "threads", "repeat", "min_repeat", "budget")


class CppAoti(Route):
    name = "cpp-aoti"
    cost = 2
    python = False
    program = "bench_aoti"  # in bench/cpp

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        if not target.info.get("aoti_model"):
            return "neml2-aoti (libneml2.so) is not installed"
        if not target.info.get("neml2_compile"):
            return "no artifact: neml2-compile is not installed"
        if workload.name == "chaboche_driver":
            return "no C++ driver (the drivers are Python)"
        return None

    def request(self, target: Target, workload: Workload, ctx: Context) -> dict[str, Any] | str:
        folder = ctx.artifacts.root.parent / "cpp-build"
        if reason := _cpp_build.build(target, folder):
            return reason
        art = ctx.artifacts.get(target, workload)
        if not isinstance(art, Artifact):
            return art
        return {"exe": str(folder / self.program), "artifact": str(art.folder)}

    def command(self, target: Target, request: dict[str, Any]) -> list[str]:
        return [request["exe"], *(str(request[k]) for k in ARGS)]
