"""The large-allocation policy: once active, a 64 MiB tensor comes from the heap (glibc's
``mallinfo2().hblkhd``, the bytes in mmapped blocks, does not grow); opted out, it is mmapped."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import ctypes, torch
from neml2.tensors._allocator import keep_large_allocations
active = keep_large_allocations()
names = ("arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost").split()
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in names]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblkhd
x = torch.ones(8 * 2**20, dtype=torch.float64)
print(active, libc.mallinfo2().hblkhd - before >= 64 * 2**20)
"""

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or "glibc" not in (os.confstr("CS_GNU_LIBC_VERSION") or ""),
    reason="the policy acts on glibc only",
)


def _probe(**env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k != "NEML2_KEEP_LARGE_ALLOCATIONS"}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**base, **env},
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.strip()


def test_large_tensor_comes_from_the_heap() -> None:
    assert _probe() == "True False"


@pytest.mark.parametrize("value", ["0", "off"])
def test_opt_out_leaves_glibc_defaults(value: str) -> None:
    assert _probe(NEML2_KEEP_LARGE_ALLOCATIONS=value) == "False True"
