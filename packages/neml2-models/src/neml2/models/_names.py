"""The rule for variable names: one word of printable characters.

NEML2 v3 takes any other word as a name (``1abc``, ``a-b``, ``é``: a parameter value that is not a
number becomes an input variable), so this rule refuses only what cannot be a name someone meant:
an empty word, whitespace, and control or other non-printable characters (a NUL in a mangled
number, a stray byte from another encoding).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["check_variable_names", "variable_name_problem"]


def variable_name_problem(name: str) -> str | None:
    """Why ``name`` is not a variable name (``None`` when it is one)."""
    if not name:
        return "it is empty"
    for ch in name:
        if ch.isspace():
            return f"it contains whitespace ({_code(ch)})"
        if not ch.isprintable():
            kind = unicodedata.category(ch)
            what = "a control character" if kind == "Cc" else "a non-printable character"
            return f"it contains {what} ({_code(ch)})"
    return None


def check_variable_names(names: Iterable[str], options: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for the first bad name, naming the option whose value holds it."""
    for name in names:
        problem = variable_name_problem(name)
        if problem is None:
            continue
        option = next((k for k, v in options.items() if _holds(v, name)), None)
        where = f"option '{option}': " if option is not None else ""
        raise ValueError(
            f"{where}{name!r} is not a variable name: {problem}; a variable name is one word "
            f"of printable characters"
        )


def _holds(value: Any, name: str) -> bool:
    if isinstance(value, str):
        return name in value.split() or name == value.strip()
    if isinstance(value, (list, tuple)):
        return any(_holds(v, name) for v in value)
    return False


def _code(ch: str) -> str:
    return f"U+{ord(ch):04X}"
