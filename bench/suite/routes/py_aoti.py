"""py-aoti: ``neml2.aoti.Model(artifact)`` (raw tensors), or the driver on the compiled stub."""

from __future__ import annotations

from typing import Any

from bench.suite._artifacts import Artifact
from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes._route import Context, Route


class PyAoti(Route):
    name = "py-aoti"
    cost = 2

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        if not target.info.get("aoti_model"):
            return "neml2.aoti.Model is missing"
        if not target.info.get("neml2_compile"):
            return "neml2-compile is not installed"
        return None

    def request(self, target: Target, workload: Workload, ctx: Context) -> dict[str, Any] | str:
        art = ctx.artifacts.get(target, workload)
        if not isinstance(art, Artifact):
            return art
        return {"artifact": str(art.folder), "stub": str(art.stub)}
