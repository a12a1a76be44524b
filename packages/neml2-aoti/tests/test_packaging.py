"""Layout and linkage of the installed C++ pieces of neml2-aoti."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import neml2.aoti
from neml2.aoti import _aoti


def _dynamic(path: Path) -> str:
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) not available")
    return subprocess.run(
        ["readelf", "-d", str(path)], check=True, capture_output=True, text=True
    ).stdout


def _needed(path: Path) -> list[str]:
    return [
        line.split("[")[1].rstrip("]") for line in _dynamic(path).splitlines() if "(NEEDED)" in line
    ]


def test_layout() -> None:
    root = Path(neml2.aoti.cmake_prefix_path)
    assert (root / "share/cmake/neml2/neml2Config.cmake").is_file()
    assert (Path(neml2.aoti.include_dir) / "neml2/csrc/aoti/Exception.h").is_file()
    assert (Path(neml2.aoti.library_dir) / "libneml2.so").is_file()
    assert not (root / "__init__.py").exists() or (root.parent / "neml2-models").exists()


@pytest.mark.parametrize("which", ["libneml2", "_aoti"])
def test_never_links_libpython_or_cuda(which: str) -> None:
    path = (
        Path(neml2.aoti.library_dir) / "libneml2.so"
        if which == "libneml2"
        else Path(_aoti.__file__)
    )
    needed = _needed(path)
    assert not [n for n in needed if n.startswith("libpython")], needed
    assert not [n for n in needed if "cuda" in n or "cudart" in n], needed
    assert "libc10.so" in needed and "libtorch_cpu.so" in needed
    if which == "_aoti":
        assert "libneml2.so" in needed and "libtorch_python.so" in needed
    else:
        assert "libtorch_python.so" not in needed


def test_runpath_finds_torch() -> None:
    lib = Path(neml2.aoti.library_dir) / "libneml2.so"
    line = next(x for x in _dynamic(lib).splitlines() if "RUNPATH" in x or "RPATH" in x)
    entries = line.split("[")[1].rstrip("]").split(":")
    import torch

    torch_lib = (Path(torch.__file__).parent / "lib").resolve()
    resolved = {(lib.parent / e.replace("$ORIGIN", ".")).resolve() for e in entries}
    assert torch_lib in resolved
