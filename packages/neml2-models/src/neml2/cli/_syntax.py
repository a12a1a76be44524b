"""Syntax records of registered types (what ``neml2-syntax`` prints).

A record is ``{type, section, doc, source_path, class_name, options}`` with one option entry
``{name, doc, ftype, required, type, value}`` per HIT key of the type's schema: ``ftype`` is
``INPUT``/``OUTPUT``/``PARAMETER``/``NONE``, ``type`` the tensor type of variables and
parameters or ``str``/``int``/``float``/``bool``/``list`` for plain options, ``value`` the
default as text (``null`` when required).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any, get_args

from neml2._registry import registry
from neml2.schema import BLOCK_NAME, MISSING, FieldKind, SchemaField

__all__ = ["option_records", "records", "type_record"]

_PLAIN = {str: "str", int: "int", float: "float", bool: "bool"}
_TENSORISH = tuple(k for k in get_args(FieldKind) if k not in ("option", "dependency"))


def _type_name(f: SchemaField) -> str:
    if f.kind in _TENSORISH:
        return str(getattr(f.type, "__name__", f.type))
    if f.kind == "dependency" or f.type is None:
        return "str"
    if f.type in _PLAIN:
        return _PLAIN[f.type]
    return "list"


def _value(f: SchemaField) -> str | None:
    if f.kind in ("derived_input", "derived_output"):
        return f"{{{f.ref}}}{f.suffix}"
    d = f.default
    if d is MISSING:
        return f.name if f.kind in ("input", "output") else None
    if d is None:
        return ""
    if d == BLOCK_NAME:
        return "{block name}"
    if isinstance(d, (list, tuple)):
        return " ".join(str(x) for x in d)
    return str(d)


def option_records(cls: type) -> list[dict[str, Any]]:
    """One entry per HIT key of ``cls``'s schema (declaration order)."""
    schema = getattr(cls, "hit", None)
    if schema is None:
        return []
    out = []
    for f in schema.fields:
        if f.knob is None:
            continue
        derived = f.kind in ("derived_input", "derived_output")
        out.append(
            {
                "name": f.knob,
                "doc": f.doc,
                "ftype": f.ftype,
                "required": bool(f.required and not derived),
                "type": _type_name(f),
                "value": _value(f),
            }
        )
    return out


def _source_path(cls: type) -> str:
    mod = sys.modules.get(cls.__module__)
    file = getattr(mod, "__file__", None) or ""
    if cls.__module__.split(".")[0] == "neml2" and file:
        rel = cls.__module__.replace(".", "/")
        return f"{rel}/__init__.py" if file.endswith("__init__.py") else f"{rel}.py"
    return file


def type_record(section: str, name: str, cls: type, *, summary: bool = False) -> dict[str, Any]:
    """The record of one registered type."""
    doc = inspect.getdoc(cls) or ""
    rec: dict[str, Any] = {
        "type": name,
        "section": section,
        "doc": doc.split("\n\n")[0].replace("\n", " ").strip(),
        "source_path": _source_path(cls),
        "class_name": "",
    }
    if not summary:
        rec["options"] = option_records(cls)
    return rec


def records(
    section: str | None = None, type_name: str | None = None, *, summary: bool = False
) -> list[dict[str, Any]]:
    """Records of every registered type (sorted by type), optionally filtered."""
    items = list(registry.items())
    if section is not None and section not in {s for s, _, _ in items}:
        raise ValueError(
            f"--section: no types registered in section '{section}' "
            f"(sections: {', '.join(registry.sections())})"
        )
    if type_name is not None and type_name not in {n for _, n, _ in items}:
        raise ValueError(f"--type: '{type_name}' is not a registered type")
    out = [
        type_record(s, n, c, summary=summary)
        for s, n, c in items
        if (section is None or s == section) and (type_name is None or n == type_name)
    ]
    if not out:
        raise ValueError(f"--type '{type_name}' is not registered in section '{section}'")
    return sorted(out, key=lambda r: (r["type"], r["section"]))
