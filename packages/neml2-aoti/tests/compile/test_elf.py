"""The executable-stack flag is cleared from ELF images inside a .pt2 archive."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from neml2.aoti.compile._elf import clear_exec_stack, has_exec_stack

_PT_GNU_STACK, _PT_LOAD = 0x6474E551, 1


def _elf(stack_flags: int) -> bytes:
    """A minimal ELF64 LE header with two program headers (PT_LOAD, PT_GNU_STACK)."""
    head = bytearray(64)
    head[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", head, 0x20, 64)  # e_phoff
    struct.pack_into("<HH", head, 0x36, 56, 2)  # e_phentsize, e_phnum
    ph = bytearray(112)
    struct.pack_into("<II", ph, 0, _PT_LOAD, 0x5)
    struct.pack_into("<II", ph, 56, _PT_GNU_STACK, stack_flags)
    return bytes(head + ph)


def test_detect_and_clear(tmp_path: Path) -> None:
    rw, rwx = _elf(0x6), _elf(0x7)
    assert has_exec_stack(rwx) and not has_exec_stack(rw) and not has_exec_stack(b"not elf")
    pkg = tmp_path / "g.pt2"
    with zipfile.ZipFile(pkg, "w") as z:
        z.writestr("g/data/aotinductor/model/x.wrapper.so", rwx)
        z.writestr("g/data/aotinductor/model/x.wrapper.cpp", "int main() {}")
    assert clear_exec_stack(pkg) == 1
    with zipfile.ZipFile(pkg) as z:
        so = z.read("g/data/aotinductor/model/x.wrapper.so")
        assert z.read("g/data/aotinductor/model/x.wrapper.cpp") == b"int main() {}"
    assert not has_exec_stack(so)
    assert struct.unpack_from("<I", so, 64 + 56 + 4)[0] == 0x6  # read/write kept
    assert struct.unpack_from("<I", so, 64 + 4)[0] == 0x5  # other headers untouched
    assert clear_exec_stack(pkg) == 0
