"""Inductor's vector-ISA probes, run side by side and ahead of lowering.

Before Inductor lowers its first CPU graph in a process, it works out which vector instruction
sets the host compiler and CPU support. For each candidate the CPU flags allow (on x86-64:
AVX-512 VNNI, AVX-512 and AVX2), it compiles a small test library with the host compiler and
loads it in a child Python. It does this one candidate after another, on first use, on the
critical path of the compile. On the benchmark's 2-core machine that costs about 10 s with a
cold Inductor cache and 3 s with a warm one, which is half of a cold elasticity compile.

:func:`start_probes` runs the same checks (Inductor's own, whose results Inductor keeps for the
process) on one thread per candidate while the model is planned and exported. The probes wait
on subprocesses and hold no lock on the interpreter. :func:`wait_probes` joins them before
anything asks Inductor which ISA to use. The threads are daemons, so a compile that fails
before lowering does not wait for them to exit. Nothing is decided here: the answer is whatever
Inductor's probes say, and without these threads Inductor would run the same probes itself.
"""

from __future__ import annotations

import contextlib
import platform
import threading
from typing import Any

__all__ = ["start_probes", "wait_probes"]

_probes: list[threading.Thread] = []
_start_lock = threading.Lock()


def _candidates() -> list[Any]:
    """The ISAs that Inductor would probe on this host: on x86-64, those whose CPU flags the host
    has (the filter of Inductor's own list); nothing elsewhere, or when the Inductor
    installed names them differently, so Inductor then probes as it always does."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return []
    try:
        from torch._inductor import cpu_vec_isa

        flags = cpu_vec_isa.x86_isa_checker()
        isas = cpu_vec_isa.supported_vec_isa_list
    except (ImportError, AttributeError):
        return []
    return [isa for isa in isas if all(flag in flags for flag in str(isa).split())]


def _probe(isa: Any) -> None:
    """Run Inductor's check of ``isa``. A failing check is left for Inductor to repeat and
    report when it asks for the same answer."""
    with contextlib.suppress(Exception):
        bool(isa)


def start_probes() -> None:
    """Start probing every candidate ISA, each on its own thread (once per process)."""
    with _start_lock:
        if _probes:
            return
        for isa in _candidates():
            thread = threading.Thread(target=_probe, args=(isa,), name=f"neml2-isa-{isa}")
            thread.daemon = True
            thread.start()
            _probes.append(thread)


def wait_probes() -> None:
    """Wait for the probes :func:`start_probes` started; returns at once if none were."""
    for thread in list(_probes):
        thread.join()
