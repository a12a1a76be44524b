"""The single exception type of :mod:`neml2.hit`."""

from __future__ import annotations

__all__ = ["HitError"]


class HitError(ValueError):
    """A located HIT error.

    ``str(err)`` is exactly three lines::

        file:line:col: reason
        <the offending source line>
        <a caret under column col>

    Attributes ``file``, ``line``, ``col`` (1-based; 0 when unknown), ``reason`` and
    ``source_line`` hold the parts.
    """

    def __init__(
        self,
        reason: str,
        file: str = "<string>",
        line: int = 0,
        col: int = 0,
        source_line: str = "",
    ) -> None:
        self.reason = _replace_undecodable(reason)
        self.file = file
        self.line = line
        self.col = col
        self.source_line = _replace_undecodable(source_line)
        super().__init__(self._render())

    def _render(self) -> str:
        caret = " " * max(self.col - 1, 0) + "^"
        return f"{self.file}:{self.line}:{self.col}: {self.reason}\n{self.source_line}\n{caret}"

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self) -> tuple[type[HitError], tuple[str, str, int, int, str]]:
        return (HitError, (self.reason, self.file, self.line, self.col, self.source_line))


def _replace_undecodable(text: str) -> str:
    """A non-UTF-8 byte kept by the reader (a lone surrogate) as U+FFFD, so the message prints
    and encodes anywhere."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
