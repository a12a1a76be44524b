"""Plain-text documentation inside reStructuredText pages.

The registry's option descriptions and the C++ bindings' docstrings are plain text: ``|b|`` is a
norm and ``(*batch, *base)`` a shape there, not a substitution or emphasis. :func:`escape_inline`
backslash-escapes the characters that start inline markup, except inside ````literal```` spans,
so such text renders as written.
"""

from __future__ import annotations

import re

_LITERAL = re.compile(r"(``.+?``)")
_MARKUP = re.compile(r"([\\*|_`])")


def escape_inline(text: str) -> str:
    """``text`` with ``\\ * | _ ` `` escaped outside double-backquoted literals."""
    parts = _LITERAL.split(text)
    return "".join(p if i % 2 else _MARKUP.sub(r"\\\1", p) for i, p in enumerate(parts))
