"""Lexical building blocks shared by the parser, the writer and the override reader."""

from __future__ import annotations

import re

__all__ = ["BARE", "NAME", "QUOTES", "block_label", "check_quote", "choose_quote"]

#: A section-name component or a field key.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+~\-]*\Z")

#: An unquoted value: no whitespace, quotes or '#'; ``${...}`` (one nesting level) may hold spaces.
BARE = re.compile(r"(?:[^\s'\"#$]|\$(?!\{)|\$\{[^{}\n]*(?:\{[^{}\n]*\}[^{}\n]*)*\})+")

#: Accepted quote styles, '' meaning unquoted.
QUOTES = ("", "'", '"', "'''")


def block_label(path: str) -> str:
    """``[Models/m]`` for a block path, ``[(root)]`` for the root."""
    return f"[{path}]" if path else "[(root)]"


def check_quote(text: str, quote: str) -> str | None:
    """Why ``text`` cannot be written with ``quote``, or None if it can."""
    if quote not in QUOTES:
        return f"unknown quote style {quote!r}"
    if quote == "":
        if BARE.fullmatch(text) is None:
            return "value needs quotes (empty, or holds whitespace, quotes or '#')"
        return None
    if quote == "'''":
        if "'''" in text or text.endswith("'"):
            return "a triple-quoted value cannot contain ''' or end with '"
        return None
    if quote in text:
        return f"value contains the quote character {quote}"
    return None


def choose_quote(text: str) -> str:
    """The simplest quote style that can hold ``text`` verbatim."""
    for quote in QUOTES:
        if check_quote(text, quote) is None:
            return quote
    raise ValueError(f"value {text!r} cannot be written in HIT (mixes ' and \" with ''')")
