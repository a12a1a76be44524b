"""Entry points: read text or a file (with snippets and overrides), apply overrides, format."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from neml2.hit._error import HitError
from neml2.hit._files import read_bounded
from neml2.hit._merge import merge, parse_token
from neml2.hit._nodes import Section
from neml2.hit._parser import parse_source
from neml2.hit._source import Source
from neml2.hit._subst import substitute
from neml2.hit._writer import write

__all__ = ["apply_overrides", "format_text", "parse_file", "parse_text"]


def _tree(text: str, filename: str, *, raw: bool = False) -> Section:
    source = Source(filename, text)
    root = Section()
    root._locate(source, 1, 1)
    return parse_source(source, root, raw=raw)


def parse_text(
    text: str,
    filename: str = "<string>",
    *,
    pre: str = "",
    post: str = "",
    overrides: Sequence[str] = (),
) -> Section:
    """Parse HIT ``text`` into a tree.

    ``!include`` paths are relative to ``filename``'s directory. ``pre``/``post`` are HIT
    snippets merged before/after the text, then the command-line ``overrides`` tokens are
    applied, and finally every ``${...}`` is evaluated on the merged tree.
    """
    root = _tree(text, filename)
    if pre:
        merge([root], _tree(pre, "<pre>"), prepend=True)
    if post:
        merge([root], _tree(post, "<post>"))
    for token in overrides:
        parse_token(root, token)
    substitute(root)
    return root


def parse_file(
    path: str | Path, *, pre: str = "", post: str = "", overrides: Sequence[str] = ()
) -> Section:
    """Parse the HIT file at ``path`` (see :func:`parse_text`)."""
    name = str(path)
    try:
        text = read_bounded(name, regular_only=False)
    except FileNotFoundError:
        raise HitError(f"input file not found: '{name}'", name, 0, 0) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise HitError(f"cannot read input file '{name}': {e}", name, 0, 0) from None
    return parse_text(text, name, pre=pre, post=post, overrides=overrides)


def apply_overrides(root: Section, overrides: Sequence[str]) -> Section:
    """Apply command-line tokens (``Models/m/E:=1``) to ``root`` in place; re-substitute."""
    for token in overrides:
        parse_token(root, token)
    substitute(root)
    return root


def format_text(text: str, filename: str = "<string>") -> str:
    """Re-indent HIT ``text`` (2 spaces per level), keeping comments, blanks and ``!include``."""
    return write(_tree(text, filename, raw=True))
