"""Inductor's vector-ISA probes run on threads ahead of lowering (``_vec_isa``): once they are
joined, Inductor's own ISA query builds nothing more and gives the answer it gives without them."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import threading
from typing import Any

import pytest

from neml2.aoti.compile import _vec_isa

# A fresh interpreter per case: Inductor keeps its probe results for the life of a process.
_ISAS_WITH_PROBES = """
import json
from torch._inductor import cpu_vec_isa
from neml2.aoti.compile._vec_isa import start_probes, wait_probes

start_probes()
wait_probes()
builds = []
def refuse(self, code):
    builds.append(str(self))
    return False
cpu_vec_isa.VecISA.check_build = refuse  # any probe left to run now answers 'unsupported'
print(json.dumps({"isas": [str(i) for i in cpu_vec_isa.valid_vec_isa_list()], "builds": builds}))
"""

_ISAS_WITHOUT = """
import json
from torch._inductor import cpu_vec_isa
print(json.dumps([str(i) for i in cpu_vec_isa.valid_vec_isa_list()]))
"""


def _run(code: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 probes")
def test_joined_probes_answer_inductor_with_no_further_build() -> None:
    with_probes = _run(_ISAS_WITH_PROBES)
    assert with_probes["builds"] == []
    assert with_probes["isas"] == _run(_ISAS_WITHOUT)
    assert "avx2" in with_probes["isas"]  # every x86-64 CI machine has it, and g++ compiles it


def test_no_candidates_off_x86(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert _vec_isa._candidates() == []


def test_failing_probe_is_left_for_inductor(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __bool__(self) -> bool:
            raise RuntimeError("compiler vanished")

    hooked: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", hooked.append)
    monkeypatch.setattr(_vec_isa, "_candidates", lambda: [Broken(), Broken()])
    monkeypatch.setattr(_vec_isa, "_probes", [])
    _vec_isa.start_probes()
    assert len(_vec_isa._probes) == 2 and all(t.daemon for t in _vec_isa._probes)
    _vec_isa.wait_probes()
    assert hooked == []  # swallowed: Inductor repeats the check and reports it itself


def test_probes_start_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def candidates() -> list[Any]:
        calls.append(1)
        return [object()]

    monkeypatch.setattr(_vec_isa, "_candidates", candidates)
    monkeypatch.setattr(_vec_isa, "_probes", [])
    _vec_isa.start_probes()
    _vec_isa.start_probes()
    _vec_isa.wait_probes()
    assert calls == [1] and len(_vec_isa._probes) == 1


def test_wait_without_start_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_vec_isa, "_probes", [])
    _vec_isa.wait_probes()
