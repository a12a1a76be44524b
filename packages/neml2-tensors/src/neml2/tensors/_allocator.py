"""Large-allocation policy (opt-in): keep batch-sized buffers in the heap.

glibc serves every allocation above its mmap threshold (at most 32 MiB by default) with fresh
pages from the kernel and unmaps them on free, so each call that produces a batch-sized tensor
page-faults its whole output again: at 10^6 points a 48 MB stress output costs more in page
faults than the kernel that fills it. :func:`keep_large_allocations` raises the mmap and trim
thresholds to :data:`THRESHOLD` so such buffers come from the heap and are reused by the next
call; the price is that up to :data:`THRESHOLD` bytes of freed memory stay with the process.

The policy changes the whole process's malloc, so a library applies it only when asked: by
calling :func:`keep_large_allocations`, or with ``NEML2_KEEP_LARGE_ALLOCATIONS=1`` in the
environment (:func:`apply_environment_opt_in`, run when neml2's model module is first imported).
The C++ runtime offers the same policy (``neml2::aoti::keep_large_allocations``). Elsewhere than
glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os

__all__ = ["THRESHOLD", "apply_environment_opt_in", "keep_large_allocations"]

THRESHOLD = 1 << 30
"""Bytes: allocations below this come from the heap, and up to this much free heap is kept."""

ENV = "NEML2_KEEP_LARGE_ALLOCATIONS"
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_FALSY = ("", "0", "false", "no", "off")


@functools.cache
def keep_large_allocations() -> bool:
    """Apply the policy to this process (once); True when it is active (glibc only)."""
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
    except (AttributeError, ValueError, OSError):  # not a glibc system
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, THRESHOLD))


def apply_environment_opt_in() -> bool:
    """:func:`keep_large_allocations` if ``NEML2_KEEP_LARGE_ALLOCATIONS`` is truthy (anything but
    unset, '', 0, false, no, off); True when the policy is active."""
    if os.environ.get(ENV, "").strip().lower() in _FALSY:
        return False
    return keep_large_allocations()
