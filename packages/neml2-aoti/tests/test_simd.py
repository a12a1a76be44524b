"""``NEML2_SIMD`` from a user's shell: read once per process, honoured by the kernels (and
``neml2.aoti.simd_path()``), a bad value reported by name on every kernel call."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from neml2.aoti import simd_path, supported_simd_paths

PROBE = """
import torch
import neml2.aoti as a
from neml2.aoti._aoti import batched_dense_solve, sum_of_products
A = torch.eye(4, dtype=torch.float64).expand(9, 4, 4)
b = torch.ones(9, 4, dtype=torch.float64)
for call in (a.simd_path, lambda: batched_dense_solve(A, b), lambda: sum_of_products([(1.0, b, b)])):
    try:
        r = call()
        print(r if isinstance(r, str) else "ok")
    except a.FatalError as e:
        print("FatalError:", e)
"""


def _run(value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "NEML2_SIMD"}
    if value is not None:
        env["NEML2_SIMD"] = value
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


def test_auto_is_the_widest_path() -> None:
    widest = supported_simd_paths()[-1]
    assert _run(None) == [widest, "ok", "ok"]
    assert _run("auto") == [widest, "ok", "ok"]


@pytest.mark.parametrize("path", supported_simd_paths())
def test_each_supported_path_is_honoured(path: str) -> None:
    assert _run(path.upper()) == [path, "ok", "ok"]


@pytest.mark.parametrize("value", ["avx", "sse2", "on"])
def test_unknown_value_fails_every_call_by_name(value: str) -> None:
    lines = _run(value)
    assert len(lines) == 3
    for line in lines:
        assert line.startswith(f"FatalError: NEML2_SIMD='{value}': expected one of auto, avx512")


@pytest.mark.parametrize("path", ["avx2", "avx512"])
def test_path_the_cpu_lacks_is_refused(path: str) -> None:
    if path in supported_simd_paths():
        pytest.skip(f"this CPU runs {path}")  # tested in C++ on every CPU (test_simd.cpp)
    for line in _run(path):
        assert f"NEML2_SIMD='{path}': this CPU (or this build of libneml2) has no {path}" in line


def test_this_process_path() -> None:
    assert simd_path() in supported_simd_paths()
