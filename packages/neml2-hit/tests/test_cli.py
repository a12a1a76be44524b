"""``python -m neml2.hit FILE [OVERRIDES]``: tree dump with locations, errors to stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from neml2.hit.__main__ import main

DOC = "E = 200e3\n[Models]\n  [m]\n    type = Foo\n    E = ${E}\n  []\n[]\n"


def test_main_prints_sections_and_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.i"
    path.write_text(DOC, encoding="utf-8")
    assert main([str(path), "Models/m/type:=Bar"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("#")[0].rstrip() for line in lines] == [
        "E = 200e3",
        "[Models]",
        "  [Models/m]",
        "    type = Bar",
        "    E = 200e3",
    ]
    assert lines[0].endswith(f"# {path}:1")
    assert lines[3].endswith("# <command line>:1")
    assert lines[4].endswith(f"# {path}:5")


def test_main_reports_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.i"
    path.write_text("[a]\n", encoding="utf-8")
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:1:1: unterminated section [a]: missing '[]'\n[a]\n^")


def test_module_entry_point(tmp_path: Path) -> None:
    path = tmp_path / "model.i"
    path.write_text(DOC, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "neml2.hit", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "[Models/m]" in out and "type = Foo" in out
