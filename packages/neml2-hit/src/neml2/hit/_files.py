"""Reading HIT files: bounded in size; ``!include`` targets regular files only, quoted only
from home.

An input file is code from whoever wrote it, and so is every file it includes. These rules keep
a hostile or mistaken ``!include`` from hanging or exhausting the reader, and from turning parse
errors into a way to print files from elsewhere:

* every HIT file is read up to :func:`max_file_bytes` (``NEML2_HIT_MAX_FILE_BYTES``, default
  16 MiB): a larger one is refused, whatever it is (``/dev/zero`` included);
* an include target must be a regular file (a device, a FIFO or a directory is refused before
  reading, checked on the opened descriptor, so a swap after a check cannot get around it); the
  top-level file may be anything the user names (``/dev/stdin``, a pipe);
* an included file outside the directory tree of the top-level input is *private*: errors in it
  give the file, line and column but not the text of the line;
* bytes that are not UTF-8 are accepted in comments (a Latin-1 accent, as NEML2 v3 reads them)
  and refused, with their position, anywhere else.
"""

from __future__ import annotations

import os
import stat

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FileRefused",
    "is_inside",
    "max_file_bytes",
    "read_bounded",
    "undecodable_byte",
]

DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024
_ENV = "NEML2_HIT_MAX_FILE_BYTES"


class FileRefused(OSError):
    """A HIT file that is not read (the message says why)."""


def max_file_bytes() -> int:
    """The size limit of one HIT file: ``NEML2_HIT_MAX_FILE_BYTES`` or 16 MiB."""
    text = os.environ.get(_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_FILE_BYTES
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value <= 0:
        raise FileRefused(f"{_ENV}={text!r}: expected a positive number of bytes")
    return value


def read_bounded(path: str, *, regular_only: bool) -> str:
    """The UTF-8 text of ``path``, at most :func:`max_file_bytes` long (``regular_only``: refuse
    anything but a regular file, without reading from it)."""
    limit = max_file_bytes()
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (os.O_NONBLOCK if regular_only else 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if regular_only and not stat.S_ISREG(mode):
            raise FileRefused(f"not a regular file ({_kind(mode)})")
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"'{path}' is a directory")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileRefused(f"larger than the limit of {limit} bytes (set {_ENV} to raise it)")
    # bytes that are not UTF-8 become lone surrogates: harmless in comments (NEML2 v3 reads
    # such files), refused by the parser where they reach a value (see undecodable_byte)
    return data.decode("utf-8", errors="surrogateescape")


def undecodable_byte(text: str) -> tuple[int, int] | None:
    """``(index, byte)`` of the first non-UTF-8 byte :func:`read_bounded` kept in ``text``."""
    for i, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":
            return i, ord(ch) - 0xDC00
    return None


def is_inside(path: str, root: str) -> bool:
    """``path`` lies in the directory tree of ``root`` (symbolic links resolved)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([real, top]) == top


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a plain file"
