"""Source text bookkeeping: file name, lines, located errors."""

from __future__ import annotations

from neml2.hit._error import HitError

__all__ = ["Source"]


#: shown in place of a line of a private source (an include from outside the input's tree)
PRIVATE_LINE = "(line not shown: the file lies outside the input file's directory)"


class Source:
    """One piece of HIT text (a file, a snippet or a command-line token) and its name.

    ``private``: errors locate but do not quote its lines (see :mod:`neml2.hit._files`).
    """

    __slots__ = ("_lines", "name", "private", "text")

    def __init__(self, name: str, text: str, *, private: bool = False) -> None:
        self.name = name
        self.text = text
        self.private = private
        self._lines: list[str] | None = None

    def line_text(self, line: int) -> str:
        """The text of 1-based line ``line`` (empty if out of range)."""
        if self._lines is None:
            self._lines = self.text.split("\n")
        if 1 <= line <= len(self._lines):
            return self._lines[line - 1]
        return ""

    def error(self, reason: str, line: int, col: int) -> HitError:
        """A :class:`HitError` located at ``line:col`` of this source."""
        quoted = PRIVATE_LINE if self.private else self.line_text(line)
        return HitError(reason, self.name, line, col, quoted)
