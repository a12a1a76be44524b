"""The allocation policies a ``neml2.aoti.Model`` applies.

* Large allocations (``neml2::aoti::keep_large_allocations``): afterwards a 64 MiB tensor comes
  from the heap (glibc's ``mallinfo2().hblkhd``, the bytes in mmapped blocks, does not grow); with
  ``NEML2_KEEP_LARGE_ALLOCATIONS=0`` it is mmapped as glibc does by default.
* The buffer cache (``neml2::aoti::cache_call_buffers``): buffers of a call are reused by the next.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

PROBE = """
import ctypes, sys, torch
import neml2.aoti
neml2.aoti.Model(sys.argv[1])
names = ("arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost").split()
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in names]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblkhd
x = torch.ones(8 * 2**20, dtype=torch.float64)
print(neml2.aoti.keep_large_allocations(), libc.mallinfo2().hblkhd - before >= 64 * 2**20)
"""

glibc_only = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or "glibc" not in (os.confstr("CS_GNU_LIBC_VERSION") or ""),
    reason="the policy acts on glibc only",
)


@glibc_only
@pytest.mark.parametrize(("opt_out", "want"), [(None, "True False"), ("0", "False True")])
def test_model_constructor_applies_the_policy(
    artifact: Callable[[str], Path], opt_out: str | None, want: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NEML2_KEEP_LARGE_ALLOCATIONS"}
    if opt_out is not None:
        env["NEML2_KEEP_LARGE_ALLOCATIONS"] = opt_out
    out = subprocess.run([sys.executable, "-c", PROBE, str(artifact("elasticity"))], env=env,
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert out.stdout.strip() == want


CACHE_PROBE = """
import sys, torch
import neml2.aoti
m = neml2.aoti.Model(sys.argv[1])
x = {"strain": torch.full((1000, 6), 1e-3, dtype=torch.float64)}
first = m.forward(x)["stress"]
ptr, before = first.data_ptr(), neml2.aoti.buffer_cache_bytes()
del first  # 48000 bytes allocated inside the call: back to the cache
kept = neml2.aoti.buffer_cache_bytes() - before
second = m.forward(x)["stress"]
print(neml2.aoti.cache_call_buffers(), kept >= 48000, second.data_ptr() == ptr)
"""


@pytest.mark.parametrize(("opt_out", "want"), [(None, "True True True"), ("0", "False False")])
def test_model_calls_reuse_their_buffers(
    artifact: Callable[[str], Path], opt_out: str | None, want: str
) -> None:
    """A call's output freed by the host returns to the buffer cache and the next call's output
    reuses it; ``NEML2_BUFFER_CACHE=0`` leaves allocation to torch (no bytes are cached; the
    address may still repeat, so only the first two answers are compared then)."""
    env = {k: v for k, v in os.environ.items() if k != "NEML2_BUFFER_CACHE"}
    if opt_out is not None:
        env["NEML2_BUFFER_CACHE"] = opt_out
    out = subprocess.run([sys.executable, "-c", CACHE_PROBE, str(artifact("elasticity"))], env=env,
                         capture_output=True, text=True, check=True)  # fmt: skip
    answers = out.stdout.split()
    assert " ".join(answers if opt_out is None else answers[:2]) == want
