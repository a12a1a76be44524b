r"""Link every compiled graph with a non-executable stack.

AOTInductor embeds a graph's constants through an assembly file (``weights.S``) that carries no
``.note.GNU-stack`` section, so the linker marks the graph's shared object as needing an
executable stack (a ``PT_GNU_STACK`` program header with ``PF_X``). Hardened hosts refuse to
``dlopen`` such a library (SELinux ``execmem``; glibc 2.41 and later by default). While
:func:`noexecstack_links` is active, every shared object Inductor links in this process is linked
with ``-Wl,-z,noexecstack``, the linker's own statement that the stack is not executable.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["LINK_FLAG", "noexecstack_links"]

#: The linker flag every graph's shared object is linked with.
LINK_FLAG = "-Wl,-z,noexecstack"

_patch_lock = threading.Lock()


@contextmanager
def noexecstack_links() -> Iterator[None]:
    """While active, Inductor's link commands for shared objects (targets ``*.so``) end with
    :data:`LINK_FLAG` (one ``with`` at a time per process)."""
    from torch._inductor import cpp_builder

    cls = cpp_builder.CppBuilder
    with _patch_lock:
        original = cls.get_command_line

        def get_command_line(self: Any) -> str:
            command: str = original(self)
            if str(self.get_target_file_path()).endswith(".so"):
                command += f" {LINK_FLAG}"
            return command

        cls.get_command_line = get_command_line  # type: ignore[method-assign]
        try:
            yield
        finally:
            cls.get_command_line = original  # type: ignore[method-assign]
