"""Merging HIT snippets into a tree and applying command-line override tokens.

Sections merge by path (the first section found at that path, repeated blocks scanned in
order); a field that already exists is replaced only by ``:=`` and is otherwise an error.
Command-line tokens read ``path/key=value`` (new field; missing sections are created) or
``path/key:=value`` (override or set; the sections must exist).
"""

from __future__ import annotations

import re

from neml2.hit._nodes import Blank, Field, Node, Section
from neml2.hit._parser import read_value
from neml2.hit._source import Source
from neml2.hit._syntax import NAME, block_label, choose_quote

__all__ = ["merge", "parse_token"]

_TOKEN = re.compile(r"[ \t]*([^\s=:]*)[ \t]*(:?=)[ \t]*")


def _duplicate(f: Field) -> str:
    return f"duplicate field '{f.name}': use ':=' to override"


def _assign(old: Field, new: Field) -> None:
    old.text, old.value, old.quote, old.override = new.text, new.value, new.quote, True
    old._source, old.file, old.line, old.col = new._source, new.file, new.line, new.col
    old._vloc = new._vloc


def _first_field(dsts: list[Section], name: str) -> Field | None:
    for d in dsts:
        f = d.field(name)
        if f is not None:
            return f
    return None


def _subsections(dsts: list[Section], name: str) -> list[Section]:
    return [s for d in dsts for s in d.sections() if s.name == name]


def merge(dsts: list[Section], src: Section, *, prepend: bool = False) -> None:
    """Merge ``src``'s children into the sections ``dsts`` (all blocks at one path, in order).

    ``prepend``: ``src`` comes *before* the existing text (new items go first, and an existing
    field must use ``:=`` to supersede the snippet's).
    """
    at = 0
    for child in list(src.children):
        placed: Node | None = child
        if isinstance(child, Section):
            targets = _subsections(dsts, child.name)
            if targets:
                merge(targets, child, prepend=prepend)
                placed = None
        elif isinstance(child, Field):
            old = _first_field(dsts, child.name)
            if old is not None and prepend:
                if not old.override:
                    raise old.error(_duplicate(old))
                _assign(child, old)  # the snippet's slot, the later text's value
                if old.parent is not None:
                    old.parent.children = [c for c in old.parent.children if c is not old]
            elif old is not None:
                placed = None
                if not child.override:
                    raise child.error(_duplicate(child))
                _assign(old, child)
        elif isinstance(child, Blank) and dsts[0].children:
            placed = None
        if placed is not None:
            placed.parent = dsts[0]
            if prepend:
                dsts[0].children.insert(at, placed)
                at += 1
            else:
                dsts[0].children.append(placed)


def parse_token(root: Section, token: str) -> None:
    """Apply one command-line override ``path/key=value`` or ``path/key:=value`` to ``root``."""
    src = Source("<command line>", token)
    m = _TOKEN.match(token)
    if m is None or "\n" in token:
        raise src.error(f"bad override '{token}': expected path/key=value or path/key:=value", 1, 1)
    parts = m.group(1).split("/")
    for part in parts:
        if NAME.match(part) is None:
            col = m.start(1) + 1
            raise src.error(f"bad override '{token}': invalid name '{part}' in path", 1, col)
    override = m.group(2) == ":="
    rest = token[m.end() :]
    if rest[:1] in ("'", '"'):
        got = read_value(token, m.end())
        if isinstance(got, str):
            raise src.error(f"bad override '{token}': {got}", 1, m.end() + 1)
        text, quote, end = got
        if token[end:].strip():
            raise src.error(f"bad override '{token}': unexpected text after value", 1, end + 1)
    else:
        text = rest.strip()
        try:
            quote = choose_quote(text)
        except ValueError as e:
            raise src.error(f"bad override '{token}': {e}", 1, m.end() + 1) from None
    dsts = [root]
    for i, name in enumerate(parts[:-1]):
        found = _subsections(dsts, name)
        if not found:
            if override:
                missing = block_label("/".join(parts[: i + 1]))
                reason = f"override path missing: no section {missing} for '{token}'"
                raise src.error(reason, 1, m.start(1) + 1)
            found = [dsts[0].add(Section(name))]
            found[0]._locate(src, 1, m.start(1) + 1)
        dsts = found
    new = Field(parts[-1], text, quote, override)
    new._locate(src, 1, m.start(1) + 1)
    new._vloc = (1, m.end() + 1)
    old = _first_field(dsts, new.name)
    if old is None:
        dsts[0].add(new)
    elif override:
        _assign(old, new)
    else:
        path = block_label(dsts[0].path)
        reason = f"field '{new.name}' already exists in {path}: use ':=' to override"
        raise new.error(reason)
