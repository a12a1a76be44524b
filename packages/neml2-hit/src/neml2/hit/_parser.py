"""Single-pass HIT reader: text -> :class:`~neml2.hit.Section` tree (includes spliced).

One item per line: a section header ``[A/b]`` or ``[./b]``, a close ``[]``/``[../]``, a field
``key = value`` / ``key := value``, ``!include path`` or a comment; any of them may carry a
trailing ``# comment``. Values are bare words, ``'...'``, ``"..."`` or ``'''...'''`` (quoted values
may span lines and are kept verbatim). Each item is matched by a compiled regex at the current
offset; only the failure paths do character-level work, to produce a precise ``HitError``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from neml2.hit._error import HitError
from neml2.hit._files import is_inside, read_bounded, undecodable_byte
from neml2.hit._nodes import Blank, Comment, Field, Include, Section
from neml2.hit._source import Source
from neml2.hit._syntax import BARE, NAME

__all__ = ["parse_source", "read_value"]

_WS = re.compile(r"[ \t]*")
_KEY_OP = re.compile(r"([^\s=#\[\]'\":!]+)[ \t]*(:?=)[ \t]*")
_WORD = re.compile(r"(?:[^\s=#:]|:(?!=))*")
_HEADER = re.compile(r"\[[ \t]*([^\]\n]*?)[ \t]*\]")
_TAIL = re.compile(r"[ \t]*(?:#([^\n]*))?(?:\n|\Z)")
_INCLUDE = re.compile(r"!include(?=[ \t#\n]|\Z)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|([^\s#'\"]+))?")
_CLOSERS = ("", "..", "../")
MAX_DEPTH = 200  # section nesting limit (keeps every recursive tree walk far from Python's limit)


def _span_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """End of ``pattern``'s (possibly empty) match at ``pos``."""
    m = pattern.match(text, pos)
    return pos if m is None else m.end()


@dataclass
class _Frame:
    section: Section  # the deepest section opened by the header
    outer: Section  # the container the header was read in
    line: int
    col: int
    levels: int  # sections opened by the header (path components)


def read_value(text: str, pos: int) -> tuple[str, str, int] | str:
    """Read one value at ``pos``: ``(content, quote, end)`` or the reason it cannot be read."""
    if text.startswith("'''", pos):
        end = text.find("'''", pos + 3)
        if end < 0:
            return "unterminated string: missing closing '''"
        return text[pos + 3 : end], "'''", end + 3
    ch = text[pos : pos + 1]
    if ch in ("'", '"'):
        end = text.find(ch, pos + 1)
        if end < 0:
            return f"unterminated string: missing closing {ch}"
        return text[pos + 1 : end], ch, end + 1
    m = BARE.match(text, pos)
    if m is None:
        if text.startswith("${", pos):
            return "unterminated brace expression: missing '}'"
        return "missing value"
    return m.group(), "", m.end()


class _Reader:
    """State of one pass over one source (includes recurse with a fresh reader)."""

    def __init__(
        self, source: Source, root: Section, raw: bool, chain: list[tuple[str, str]]
    ) -> None:
        self.source, self.text, self.raw, self.chain = source, source.text, raw, chain
        self.pos, self.line, self.line_start = 0, 1, 0
        self.container = root
        self.depth = 0  # nesting depth of ``container`` below the document root
        self.frames: list[_Frame] = []
        self.index: dict[int, dict[str, Field]] = {}

    def fail(self, reason: str, pos: int | None = None) -> HitError:
        pos = self.pos if pos is None else pos
        return self.source.error(reason, self.line, pos - self.line_start + 1)

    def advance(self, end: int) -> None:
        """Move to ``end``, counting the newlines crossed."""
        n = self.text.count("\n", self.pos, end)
        if n:
            self.line += n
            self.line_start = self.text.rfind("\n", self.pos, end) + 1
        self.pos = end

    def run(self) -> None:
        text, n = self.text, len(self.text)
        while True:
            self.pos = _span_end(_WS, text, self.pos)
            if self.pos >= n:
                break
            ch = text[self.pos]
            col = self.pos - self.line_start + 1
            if ch == "\n":
                self.container.add(Blank())._locate(self.source, self.line, col)
                self.advance(self.pos + 1)
                continue
            if ch == "#":
                end = text.find("\n", self.pos)
                end = n if end < 0 else end
                comment = Comment(text[self.pos + 1 : end].rstrip(" \t"))
                self.container.add(comment)._locate(self.source, self.line, col)
                self.advance(min(end + 1, n))
                continue
            if ch == "!":
                self.include(col)
                continue
            what = self.header(col) if ch == "[" else self.field(col)
            self.tail(inline=True, what=what)
        if self.frames:
            f = self.frames[-1]
            reason = f"unterminated section [{f.section.path}]: missing '[]'"
            raise self.source.error(reason, f.line, f.col)

    def tail(self, inline: bool, what: str) -> None:
        m = _TAIL.match(self.text, self.pos)
        if m is None:
            at = _span_end(_WS, self.text, self.pos)
            if self.text.startswith("${", at):
                raise self.fail("unterminated brace expression: missing '}'", at)
            raise self.fail(f"unexpected text after {what}", at)
        if m.group(1) is not None:
            col = m.start(1) - self.line_start
            comment = Comment(m.group(1).rstrip(" \t"), inline=inline)
            self.container.add(comment)._locate(self.source, self.line, col)
        self.advance(m.end())

    def header(self, col: int) -> str:
        m = _HEADER.match(self.text, self.pos)
        if m is None:
            raise self.fail("unterminated section header: missing ']'")
        body = m.group(1)
        if body in _CLOSERS:
            if not self.frames:
                raise self.fail("stray '[]': no open section to close")
            frame = self.frames.pop()
            self.container = frame.outer
            self.depth -= frame.levels
        else:
            self.open(body[2:] if body.startswith("./") else body, col, m.start(1))
        self.pos = m.end()
        return "section header"

    def open(self, body: str, col: int, body_pos: int) -> None:
        parts = body.split("/")
        for part in parts:
            if NAME.match(part) is None:
                raise self.fail(f"invalid section name '{part}' in [{body}]", body_pos)
        if self.depth + len(parts) > MAX_DEPTH:
            raise self.fail(f"sections nested deeper than {MAX_DEPTH} levels")
        outer = section = self.container
        for i, part in enumerate(parts):
            section = section.add(Section(part))
            section.implicit = i < len(parts) - 1
            section._locate(self.source, self.line, col)
        self.frames.append(_Frame(section, outer, self.line, col, len(parts)))
        self.depth += len(parts)
        self.container = section

    def field(self, col: int) -> str:
        text = self.text
        m = _KEY_OP.match(text, self.pos)
        if m is None:
            word = text[self.pos : _span_end(_WORD, text, self.pos)]
            if not word:
                raise self.fail("missing field name before '='")
            if NAME.match(word) is None:
                raise self.fail(f"invalid field name '{word}'")
            at = _span_end(_WS, text, self.pos + len(word))
            raise self.fail(f"missing '=' after field name '{word}'", at)
        key = m.group(1)
        if NAME.match(key) is None:
            raise self.fail(f"invalid field name '{key}'")
        vpos = m.end()
        got = read_value(text, vpos)
        if isinstance(got, str):
            raise self.fail(f"{got} for field '{key}'", vpos)
        value, quote, end = got
        bad = undecodable_byte(value)
        if bad is not None:
            at = vpos + len(quote) + bad[0]
            offset = len(text[:at].encode("utf-8", errors="surrogateescape"))
            raise self.fail(
                f"byte 0x{bad[1]:02X} (file offset {offset}) in the value of field '{key}' is "
                f"not UTF-8: save the file as UTF-8",
                at,
            )
        vline, vcol = self.line, vpos - self.line_start + 1
        self.store(key, value, quote, m.group(2) == ":=", col, (vline, vcol))
        self.advance(end)
        return f"the value of field '{key}'"

    def store(
        self, key: str, value: str, quote: str, override: bool, col: int, vloc: tuple[int, int]
    ) -> None:
        fields = self.index.setdefault(id(self.container), {})
        old = None if self.raw else fields.get(key)
        if old is not None and not override:
            raise self.fail(f"duplicate field '{key}': use ':=' to override")
        f = old if old is not None else self.container.add(Field(key, "", "'"))
        f.text = f.value = value
        f.quote = quote
        f.override = f.override or override
        f._locate(self.source, self.line, col)
        f._vloc = vloc
        fields.setdefault(key, f)

    def include(self, col: int) -> None:
        m = _INCLUDE.match(self.text, self.pos)
        if m is None:
            word = self.text[self.pos : _span_end(_WORD, self.text, self.pos)]
            raise self.fail(f"unknown directive '{word}' (only !include is supported)")
        target = m.group(1) or m.group(2) or m.group(3)
        if not target:
            raise self.fail("missing file name after !include", m.end())
        target_pos = max(m.start(1), m.start(2), m.start(3))
        self.pos = m.end()
        if self.raw:
            inc = Include(self.text[m.start() + len("!include") : m.end()].strip())
            self.container.add(inc)._locate(self.source, self.line, col)
        else:
            self.splice(target, target_pos)
        self.tail(inline=self.raw, what="!include")

    def splice(self, target: str, target_pos: int) -> None:
        base = os.path.dirname(self.source.name) if not self.source.name.startswith("<") else ""
        path = os.path.normpath(os.path.join(base, target))
        key = os.path.abspath(path)
        if any(k == key for _, k in self.chain):
            names = " -> ".join([name for name, _ in self.chain] + [path])
            raise self.fail(f"include cycle: {names}", target_pos)
        try:
            content = read_bounded(path, regular_only=True)
        except FileNotFoundError:
            reason = f"include file not found: '{target}' (looked for {path})"
            raise self.fail(reason, target_pos) from None
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise self.fail(f"cannot read include file '{target}': {e}", target_pos) from None
        chain = [*self.chain, (path, key)]
        home = os.path.dirname(self.chain[0][1]) if self.chain else os.getcwd()
        source = Source(path, _normalize(content), private=not is_inside(key, home))
        sub = _Reader(source, self.container, self.raw, chain)
        sub.index, sub.depth = self.index, self.depth
        sub.run()


def _normalize(text: str) -> str:
    """CRLF and lone CR line endings become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def parse_source(source: Source, root: Section, *, raw: bool = False) -> Section:
    """Read ``source`` into ``root`` (``raw``: keep ``!include`` lines and duplicate fields)."""
    source.text = _normalize(source.text)
    top = source.name
    chain = [] if top.startswith("<") else [(top, os.path.abspath(top))]
    _Reader(source, root, raw, chain).run()
    return root
