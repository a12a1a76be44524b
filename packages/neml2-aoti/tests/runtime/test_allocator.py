"""Constructing a ``neml2.aoti.Model`` applies the large-allocation policy
(``neml2::aoti::keep_large_allocations``): afterwards a 64 MiB tensor comes from the heap
(glibc's ``mallinfo2().hblkhd``, the bytes in mmapped blocks, does not grow); with
``NEML2_KEEP_LARGE_ALLOCATIONS=0`` it is mmapped as glibc does by default."""

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

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or "glibc" not in (os.confstr("CS_GNU_LIBC_VERSION") or ""),
    reason="the policy acts on glibc only",
)


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
