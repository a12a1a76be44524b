"""Hypothesis strategies producing HIT trees and texts (shared by round-trip and fuzz tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from neml2.hit import Blank, Comment, Field, Node, Section, write
from neml2.hit._syntax import QUOTES, check_quote

names = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.+~\-]{0,7}", fullmatch=True)

_chars = st.characters(exclude_categories=["Cs"], exclude_characters="\r")
_words = st.from_regex(r"[A-Za-z0-9_.+\-/()]{1,8}", fullmatch=True)
_numbers = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
_lists = st.lists(st.one_of(_words, _numbers), min_size=0, max_size=5).map(" ".join)
_lists2d = st.lists(st.lists(_numbers, min_size=1, max_size=3), min_size=1, max_size=3).map(
    lambda rows: "; ".join(" ".join(r) for r in rows)
)
_free = st.text(_chars, max_size=20)
_block = st.lists(st.text(_chars.filter(lambda c: c != "\n"), max_size=10), max_size=4).map(
    "\n".join
)

values = st.one_of(_words, _numbers, _lists, _lists2d, _free, _block).filter(
    lambda v: "${" not in v
)
comment_texts = st.text(_chars.filter(lambda c: c != "\n"), max_size=15).map(
    lambda t: t.rstrip(" \t")
)


@st.composite
def fields(draw: st.DrawFn, name: str) -> Field:
    """A field with any value kind and any quote style able to hold it."""
    value = draw(values)
    usable = [q for q in QUOTES if check_quote(value, q) is None]
    if not usable:
        value = value.replace("'", "")
        usable = [q for q in QUOTES if check_quote(value, q) is None]
    return Field(name, value, draw(st.sampled_from(usable)), draw(st.booleans()))


@st.composite
def sections(draw: st.DrawFn, name: str = "", depth: int = 0) -> Section:
    """A section with unique field names, nested/repeated subsections, comments and blanks."""
    if name and depth < 3 and draw(st.integers(0, 4)) == 0:
        wrapper = Section(name, [draw(sections(draw(names), depth + 1))])
        wrapper.implicit = True  # written as a path header [name/sub]
        return wrapper
    root = Section(name)
    if name and draw(st.booleans()) and draw(st.booleans()):
        root.add(Comment(draw(comment_texts), inline=True))
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 6 if depth < 3 else 3))):
        kind = draw(st.sampled_from(["field", "field", "section", "comment", "blank"]))
        node: Node
        if kind == "section" and depth < 3:
            node = draw(sections(draw(names), depth + 1))
        elif kind == "comment":
            node = Comment(draw(comment_texts))
        elif kind == "blank":
            node = Blank()
        else:
            key = draw(names)
            if key in used:
                continue
            used.add(key)
            node = draw(fields(key))
        root.add(node)
        if isinstance(node, (Field, Section)) and draw(st.integers(0, 3)) == 0:
            root.add(Comment(draw(comment_texts), inline=True))
    return root


documents = sections()
texts = documents.map(write)
