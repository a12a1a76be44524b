"""Compile a graph's wrapper and kernel object files at the same time.

AOTInductor writes one graph as two C++ translation units, ``<key>.wrapper.cpp`` (the model
container that allocates buffers and sequences the kernels) and ``<key>.kernel.cpp`` (the loops),
compiles them one after the other, then links them. Neither object file needs the other, so
while :func:`overlapped_objects` is active the wrapper's compile runs on a thread during the
kernel's. Every other build (precompiled headers, the weights, the link) first waits for it, so
the link sees both objects. Chaboche's scalarized ``_jacobian`` spends about 7 s in the wrapper
and 14 s in the kernel; with the overlap, about 14 s.

A compile error in the wrapper is raised by the build after it, as the same exception type
(:class:`torch._inductor.exc.CppCompileError`), so the caller's fallbacks still apply. Builds
this module cannot classify (another Inductor's file names) run as before, one after the other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

__all__ = ["overlapped_objects"]

_patch_lock = threading.Lock()


def _role(builder: Any) -> str:
    """``"wrapper"`` / ``"kernel"`` for the compile of a graph's wrapper / kernel object file,
    ``"other"`` for any other build."""
    target = str(builder.get_target_file_path())
    for role in ("wrapper", "kernel"):
        if target.endswith(f".{role}.o"):
            return role
    return "other"


@contextmanager
def overlapped_objects() -> Iterator[None]:
    """While active, Inductor's C++ builds of one process compile a graph's wrapper object
    during its kernel object (one ``with`` at a time per process)."""
    from torch._inductor import cpp_builder

    cls = cpp_builder.CppBuilder
    # the executor's exit waits for a wrapper compile still running (e.g. after a kernel error)
    with _patch_lock, ThreadPoolExecutor(1, thread_name_prefix="neml2-wrapper-cc") as pool:
        original = cls.build
        pending: list[Future[None]] = []

        def join() -> None:
            while pending:
                pending.pop(0).result()

        def build(self: Any) -> None:
            role = _role(self)
            if role == "wrapper":
                join()
                pending.append(pool.submit(original, self))
                return
            if role == "other":
                join()
            original(self)  # a kernel's error first; the wrapper's, if any, stays unraised
            join()

        cls.build = build  # type: ignore[method-assign]
        try:
            yield
            join()
        finally:
            cls.build = original  # type: ignore[method-assign]
