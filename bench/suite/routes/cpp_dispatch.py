"""cpp-dispatch: ``neml2::aoti::DispatchedModel`` (chunked, multi-device) from C++."""

from __future__ import annotations

from bench.suite._target import Target
from bench.suite._workloads import Workload
from bench.suite.routes._route import Route


class CppDispatch(Route):
    name = "cpp-dispatch"
    python = False

    def unavailable(self, target: Target, workload: Workload, mode: str) -> str | None:
        return "neml2::aoti::DispatchedModel is not implemented yet"
