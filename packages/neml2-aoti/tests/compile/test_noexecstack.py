"""Every compiled graph's shared object has a non-executable stack (``PT_GNU_STACK`` without
``E``), read by binutils' ``readelf`` (the toolchain that links the graphs)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from torch._inductor import cpp_builder

from neml2.aoti.compile._noexecstack import LINK_FLAG, noexecstack_links
from neml2.aoti.compile.testing import SCENARIOS

#: An object with no ``.note.GNU-stack`` section, as Inductor's ``weights.S`` is.
_WEIGHTS_S = """\t.section\t.rodata
\t.balign 64
\t.globl\tneml2_test_constants_start
neml2_test_constants_start:
\t.byte 1, 2, 3, 4
"""


def _stack_flags(so: Path) -> str:
    """The flags column (``RW`` / ``RWE``) of the ``GNU_STACK`` program header of ``so``."""
    readelf = shutil.which("readelf")
    assert readelf, "readelf (binutils) is needed: it comes with the C++ toolchain"
    headers = subprocess.run(
        [readelf, "-lW", str(so)], check=True, capture_output=True, text=True
    ).stdout
    rows = [line.split() for line in headers.splitlines() if line.split()[:1] == ["GNU_STACK"]]
    assert len(rows) == 1, headers
    return "".join(f for f in rows[0][6:-1])


def _link(tmp_path: Path, name: str) -> Path:
    """A shared object linked by Inductor's own builder from an object without the stack note."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / f"{name}.S"
    src.write_text(_WEIGHTS_S)
    builder = cpp_builder.CppBuilder(
        name=name,
        sources=str(src),
        output_dir=str(tmp_path),
        BuildOption=cpp_builder.CppOptions(),
    )
    builder.build()
    return Path(builder.get_target_file_path())


def test_links_get_the_flag_and_objects_do_not(tmp_path: Path) -> None:
    link = cpp_builder.CppBuilder(
        name="g", sources=str(tmp_path / "g.S"), output_dir=str(tmp_path),
        BuildOption=cpp_builder.CppOptions(),
    )  # fmt: skip
    compile_only = cpp_builder.CppBuilder(
        name="g", sources=str(tmp_path / "g.S"), output_dir=str(tmp_path),
        BuildOption=cpp_builder.CppOptions(compile_only=True),
    )  # fmt: skip
    before = link.get_command_line()
    with noexecstack_links():
        assert link.get_command_line() == f"{before} {LINK_FLAG}"
        assert LINK_FLAG not in compile_only.get_command_line()
    assert link.get_command_line() == before  # Inductor's builder is restored


def test_real_link_has_no_executable_stack(tmp_path: Path) -> None:
    baseline = _link(tmp_path / "plain", "plain")
    if "E" not in _stack_flags(baseline):
        pytest.skip("this linker does not default to an executable stack; nothing to prevent")
    with noexecstack_links():
        hardened = _link(tmp_path / "hardened", "hardened")
    assert _stack_flags(hardened) == "RW"


def test_compiled_graphs_have_no_executable_stack(
    artifact: Callable[[str], Path], dtype_name: str, tmp_path: Path
) -> None:
    for name, options in SCENARIOS.items():
        if dtype_name not in options.get("dtypes", [dtype_name]):
            continue
        packages = sorted((artifact(name) / "cpu" / dtype_name).glob("*.pt2"))
        assert packages
        for package in packages:
            with zipfile.ZipFile(package) as z:
                sos = [i for i in z.namelist() if i.endswith(".so")]
                assert sos, package
                for member in sos:
                    so = Path(z.extract(member, tmp_path / package.stem))
                    assert _stack_flags(so) == "RW", f"{package}: {member}"
