"""The large-allocation policy is opt-in: by default a 64 MiB tensor is mmapped as glibc does
(``mallinfo2().hblkhd``, the bytes in mmapped blocks, grows by it); opted in (an explicit call
or ``NEML2_KEEP_LARGE_ALLOCATIONS=1``), it comes from the heap and ``hblkhd`` does not grow."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import ctypes, sys, torch
import neml2.tensors._allocator as policy
active = {"call": policy.keep_large_allocations, "env": policy.apply_environment_opt_in,
          "none": lambda: False}[sys.argv[1]]()
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


def _probe(how: str, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k != "NEML2_KEEP_LARGE_ALLOCATIONS"}
    out = subprocess.run([sys.executable, "-c", PROBE, how], env={**base, **env},
                         capture_output=True, text=True, check=True)  # fmt: skip
    return out.stdout.strip()


def test_glibc_defaults_unless_asked() -> None:
    assert _probe("none") == "False True"
    assert _probe("env") == "False True"


@pytest.mark.parametrize("value", ["0", "off", ""])
def test_falsy_environment_is_no_opt_in(value: str) -> None:
    assert _probe("env", NEML2_KEEP_LARGE_ALLOCATIONS=value) == "False True"


def test_explicit_call_keeps_large_tensors_in_the_heap() -> None:
    assert _probe("call") == "True False"


@pytest.mark.parametrize("value", ["1", "yes"])
def test_environment_opt_in(value: str) -> None:
    assert _probe("env", NEML2_KEEP_LARGE_ALLOCATIONS=value) == "True False"
