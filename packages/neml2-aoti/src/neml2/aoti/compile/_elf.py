r"""Clear the executable-stack flag of shared objects inside an AOTI ``.pt2`` (aoti.md §1.1).

A ``PT_GNU_STACK`` program header with ``PF_X`` set makes hardened hosts refuse to ``dlopen`` the
library. The flag is one bit in the 64-bit ELF program header table; it is cleared in place
(the archive member is rewritten, everything else copied unchanged).
"""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

__all__ = ["clear_exec_stack", "has_exec_stack"]

_PT_GNU_STACK = 0x6474E551
_PF_X = 0x1


def _stack_headers(data: bytes) -> list[int]:
    """Byte offsets of the ``p_flags`` field of every ``PT_GNU_STACK`` header (ELF64 LE only)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    out = []
    for i in range(phnum):
        off = phoff + i * phentsize
        if struct.unpack_from("<I", data, off)[0] == _PT_GNU_STACK:
            out.append(off + 4)
    return out


def has_exec_stack(data: bytes) -> bool:
    """True if the ELF image requests an executable stack."""
    return any(struct.unpack_from("<I", data, o)[0] & _PF_X for o in _stack_headers(data))


def _clear(data: bytes) -> bytes:
    buf = bytearray(data)
    for o in _stack_headers(data):
        flags = struct.unpack_from("<I", buf, o)[0]
        struct.pack_into("<I", buf, o, flags & ~_PF_X)
    return bytes(buf)


def clear_exec_stack(package: str | Path) -> int:
    """Clear the flag in every ``.so`` member of ``package``; returns how many were changed."""
    package = Path(package)
    with zipfile.ZipFile(package) as z:
        infos = z.infolist()
        bad = [
            i.filename for i in infos if i.filename.endswith(".so") and has_exec_stack(z.read(i))
        ]
        if not bad:
            return 0
        tmp = package.with_suffix(".tmp")
        with zipfile.ZipFile(tmp, "w") as out:
            for info in infos:
                data = z.read(info)
                out.writestr(info, _clear(data) if info.filename in bad else data)
    os.replace(tmp, package)
    return len(bad)
