"""cpp-dispatch: ``neml2::aoti::DispatchedModel`` from C++ (``bench/cpp/bench_dispatch.cpp``).

The cpp-aoti artifact through ``SimpleScheduler{cpu, default_chunk_size}``, the scheduler
``neml2::aoti::load_model`` uses by default.
"""

from __future__ import annotations

from bench.suite.routes.cpp_aoti import CppAoti


class CppDispatch(CppAoti):
    name = "cpp-dispatch"
    program = "bench_dispatch"
