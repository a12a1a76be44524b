"""Typed readings of a HIT value string.

Scalars: ``int`` accepts ``[+-]?[0-9]+`` only (``1e3`` and ``1.0`` are rejected); ``float``
accepts decimal/scientific notation (``200e3``, ``.5``, ``-1.E-3``) and ``inf``/``nan``;
``bool`` accepts exactly ``true`` and ``false``. Lists split on whitespace; 2-D lists split
rows on ``;`` and then on whitespace (``'1 2; 3 4'`` -> ``[[1, 2], [3, 4]]``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["ConvertError", "convert", "convert_list", "convert_list2d", "kind_name"]

_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z", re.IGNORECASE
)


class ConvertError(Exception):
    """A value that does not read as the requested kind (message without location)."""


def _to_str(text: str) -> str:
    return text


def _to_int(text: str) -> int:
    if _INT.match(text) is None:
        raise ValueError(text)
    return int(text)


def _to_float(text: str) -> float:
    if _FLOAT.match(text) is None:
        raise ValueError(text)
    return float(text)


def _to_bool(text: str) -> bool:
    if text == "true":
        return True
    if text == "false":
        return False
    raise ValueError(text)


_KINDS: dict[type, tuple[Callable[[str], Any], str, str]] = {
    str: (_to_str, "a string", "strings"),
    int: (_to_int, "an integer", "integers"),
    float: (_to_float, "a number", "numbers"),
    bool: (_to_bool, "a boolean ('true' or 'false')", "booleans ('true' or 'false')"),
}


def _reader(kind: type) -> tuple[Callable[[str], Any], str, str]:
    try:
        return _KINDS[kind]
    except KeyError:
        raise TypeError(
            f"unsupported HIT value kind {kind!r}: use str, int, float or bool"
        ) from None


def kind_name(kind: type, *, plural: bool = False) -> str:
    """Human name of ``kind`` (``'an integer'`` or, plural, ``'integers'``)."""
    _, singular, plurals = _reader(kind)
    return plurals if plural else singular


def convert(text: str, kind: type) -> Any:
    """Read ``text`` as one ``kind`` value."""
    read, name, _ = _reader(kind)
    try:
        return read(text)
    except ValueError:
        raise ConvertError(f"expected {name}, got '{text}'") from None


def _items(tokens: list[str], read: Callable[[str], Any], what: str, row: str) -> list[Any]:
    out: list[Any] = []
    for i, tok in enumerate(tokens, 1):
        try:
            out.append(read(tok))
        except ValueError:
            raise ConvertError(f"expected {what}, got '{tok}' ({row}item {i})") from None
    return out


def convert_list(text: str, kind: type) -> list[Any]:
    """Read whitespace-separated ``text`` as a list of ``kind``."""
    read, _, plural = _reader(kind)
    return _items(text.split(), read, f"a list of {plural}", "")


def convert_list2d(text: str, kind: type) -> list[list[Any]]:
    """Read ``text`` as rows separated by ``;``, each a whitespace-separated list of ``kind``."""
    read, _, plural = _reader(kind)
    what = f"a 2-D list of {plural}"
    if not text.strip():
        return []
    rows: list[list[Any]] = []
    for r, row in enumerate(text.split(";"), 1):
        tokens = row.split()
        if not tokens:
            raise ConvertError(f"expected {what}, got an empty row {r} in '{text}'")
        rows.append(_items(tokens, read, what, f"row {r}, "))
    return rows
