"""The process-wide allocation policies are opt-in.

By default, importing neml2, loading and evaluating an input (py-eager) and loading and calling a
compiled ``neml2.aoti.Model`` leave the host process as it was: c10's CPU allocator is the same
object, and glibc's malloc still mmaps a 64 MiB tensor (``mallinfo2().hblkhd``, the bytes in
mmapped blocks, grows by it). Opted in, by environment (``NEML2_KEEP_LARGE_ALLOCATIONS=1``,
``NEML2_BUFFER_CACHE=1``) or by the explicit calls, the 64 MiB tensor comes from the heap and the
buffer cache sits in front of torch's allocator, where a call's freed buffers are reused by the
next call.
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
from neml2.aoti import _aoti
allocator = _aoti._cpu_allocator_address()
import neml2, neml2.aoti
eager = neml2.load_model(sys.argv[2], "model")
strain = torch.full((10, 6), 1e-3, dtype=torch.float64)
eager.call_by_name({"strain": strain})
m = neml2.aoti.Model(sys.argv[1])
m.forward({"strain": strain})
if sys.argv[3] == "call":
    neml2.aoti.keep_large_allocations(), neml2.aoti.cache_call_buffers()
names = ("arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost").split()
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in names]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
before = libc.mallinfo2().hblkhd
x = torch.ones(8 * 2**20, dtype=torch.float64)
mmapped = libc.mallinfo2().hblkhd - before >= 64 * 2**20
print(f"allocator_replaced={_aoti._cpu_allocator_address() != allocator} mmapped={mmapped}")
"""

glibc_only = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or "glibc" not in (os.confstr("CS_GNU_LIBC_VERSION") or ""),
    reason="the malloc policy acts on glibc only",
)
OPT_INS = ("NEML2_KEEP_LARGE_ALLOCATIONS", "NEML2_BUFFER_CACHE")


def _probe(artifact: Path, eager_input: Path, how: str, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in OPT_INS}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(artifact), str(eager_input), how],
        env={**base, **env}, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


@glibc_only
@pytest.mark.parametrize(
    "env", [{}, {"NEML2_KEEP_LARGE_ALLOCATIONS": "0", "NEML2_BUFFER_CACHE": "off"}]
)
def test_host_process_untouched_by_default(
    artifact: Callable[[str], Path], scenario_file: Callable[[str], Path], env: dict[str, str]
) -> None:
    got = _probe(artifact("elasticity"), scenario_file("elasticity"), "none", **env)
    assert got == "allocator_replaced=False mmapped=True"


@glibc_only
@pytest.mark.parametrize(("how", "env"), [("none", dict.fromkeys(OPT_INS, "1")), ("call", {})])
def test_opt_ins_by_environment_or_call(
    artifact: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    how: str,
    env: dict[str, str],
) -> None:
    got = _probe(artifact("elasticity"), scenario_file("elasticity"), how, **env)
    assert got == "allocator_replaced=True mmapped=False"


CACHE_PROBE = """
import sys, torch
import neml2.aoti
if sys.argv[2] == "call":
    neml2.aoti.cache_call_buffers()
m = neml2.aoti.Model(sys.argv[1])
x = {"strain": torch.full((1000, 6), 1e-3, dtype=torch.float64)}
first = m.forward(x)["stress"]
ptr, before = first.data_ptr(), neml2.aoti.buffer_cache_bytes()
del first  # 48000 bytes allocated inside the call: back to the cache
kept = neml2.aoti.buffer_cache_bytes() - before
second = m.forward(x)["stress"]
print(kept >= 48000, second.data_ptr() == ptr)
"""


@pytest.mark.parametrize(
    ("how", "env", "want"),
    [
        ("none", {}, "False"),
        ("none", {"NEML2_BUFFER_CACHE": "0"}, "False"),
        ("none", {"NEML2_BUFFER_CACHE": "1"}, "True True"),
        ("call", {}, "True True"),
    ],
)
def test_buffer_cache_reuses_call_buffers_when_opted_in(
    artifact: Callable[[str], Path], how: str, env: dict[str, str], want: str
) -> None:
    """Opted in, a call's output freed by the host returns to the buffer cache and the next
    call's output reuses it; otherwise no bytes are cached (the address may still repeat through
    malloc, so only the first answer is compared then)."""
    base = {k: v for k, v in os.environ.items() if k != "NEML2_BUFFER_CACHE"}
    out = subprocess.run([sys.executable, "-c", CACHE_PROBE, str(artifact("elasticity")), how],
                         env={**base, **env}, capture_output=True, text=True, check=True)  # fmt: skip
    answers = out.stdout.split()
    assert " ".join(answers if want != "False" else answers[:1]) == want
