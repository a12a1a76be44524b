"""Layout and linkage of the installed libneml2_eager.so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import neml2.aoti
import neml2.eager


def _dynamic(path: Path) -> list[str]:
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) not available")
    out = subprocess.run(
        ["readelf", "-d", str(path)], check=True, capture_output=True, text=True
    ).stdout
    return out.splitlines()


def _library() -> Path:
    return Path(neml2.eager.library_dir) / "libneml2_eager.so"


def test_layout() -> None:
    root = Path(neml2.eager.cmake_prefix_path)
    assert _library().is_file()
    assert (root / "share/cmake/neml2_eager/neml2_eagerConfig.cmake").is_file()
    for header in ("python.h", "Model.h", "load_model.h"):
        assert (Path(neml2.eager.include_dir) / "neml2/csrc/eager" / header).is_file()


def test_links_libneml2_but_not_libpython() -> None:
    needed = [line.split("[")[1].rstrip("]") for line in _dynamic(_library()) if "(NEEDED)" in line]
    assert "libneml2.so" in needed
    assert not [n for n in needed if n.startswith("libpython")], needed
    assert not [n for n in needed if "cuda" in n], needed


def test_runpath_finds_libneml2_and_torch() -> None:
    lib = _library()
    line = next(x for x in _dynamic(lib) if "RUNPATH" in x or "RPATH" in x)
    entries = line.split("[")[1].rstrip("]").split(":")
    resolved = {(lib.parent / e.replace("$ORIGIN", ".")).resolve() for e in entries}
    assert (Path(torch.__file__).parent / "lib").resolve() in resolved
    assert Path(neml2.aoti.library_dir).resolve() in resolved
