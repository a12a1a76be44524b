"""Output files written atomically, and their targets checked before the work that fills them.

:func:`atomic_output` writes into a temporary file in the target's directory, flushes it to disk
and renames it over the target: a reader (or a run interrupted at any point) sees the old file or
the complete new one, never a truncated mix. :func:`check_writable` says up front, naming the
file and what asked for it, when a target cannot be written (missing or read-only directory, a
directory in the way), so a long run does not end in that error.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_output", "check_writable"]


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str], mode: str = "w", **open_args: Any
) -> Iterator[IO[Any]]:
    """A file object whose content replaces ``path`` when the block exits normally.

    ``mode`` is ``"w"`` (text; ``open_args`` such as ``newline`` are passed on) or ``"wb"``. On an
    exception the target is untouched and the temporary file removed. The new file gets the
    permissions a plain ``open`` would have left: those of the file it replaces, else 0666 less
    the umask.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_output: mode must be 'w' or 'wb', got {mode!r}")
    target = Path(os.path.realpath(path))  # through a symbolic link, as open() writes
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **open_args) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: str | os.PathLike[str], what: str) -> None:
    """Raise ``OSError`` naming ``what`` and the file if ``path`` cannot be (re)written."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise IsADirectoryError(f"{what}: '{target}' is a directory, not a file")
    if not parent.is_dir():
        problem = "is not a directory" if parent.exists() else "does not exist"
        raise FileNotFoundError(f"{what}: the directory of '{target}' {problem}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".probe", dir=parent)
    except OSError as e:
        raise PermissionError(
            f"{what}: cannot write '{target}' (directory '{parent}': {e.strerror or e})"
        ) from e
    os.close(fd)
    os.unlink(tmp)


def _mode_for(target: Path) -> int:
    with contextlib.suppress(OSError):
        return stat.S_IMODE(target.stat().st_mode)
    return 0o666 & ~_umask()


#: The umask assumed where the process's cannot be read without changing it (no /proc).
DEFAULT_UMASK = 0o022


def _umask() -> int:
    """The process umask as /proc reports it, else :data:`DEFAULT_UMASK`. Never set: setting and
    restoring it would briefly change every other thread's file modes."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return DEFAULT_UMASK
