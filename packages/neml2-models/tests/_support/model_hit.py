"""HIT text of a single ``[Models/model]`` block, shared by the leaf-model tests."""

from __future__ import annotations


def model_hit(type_: str, options: str = "") -> str:
    """``[Models/model]`` of type ``type_`` with ``options`` inserted verbatim as its body."""
    return f"[Models]\n  [model]\n    type = {type_}\n    {options}\n  []\n[]\n"


def model_hit_split(type_: str, options: str) -> str:
    """:func:`model_hit` with ``;``-separated ``options``, one per line."""
    return model_hit(type_, "\n    ".join(options.split(";")))
