"""Registered types match the NEML2 v3 catalog (``tests/data/catalog.json``, recorded from v3).

For every registered type with a ``HitSchema`` that the catalog lists in the same section:
the accepted HIT option keys are exactly the catalog's (input/output options, override knobs,
parameters, plain options), required-ness of parameters/options agrees, and the tensor types of
named inputs, outputs and parameters agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from neml2._registry import registry

CATALOG = json.loads((Path(__file__).parent / "data" / "catalog.json").read_text())


def _expected_keys(entry: dict[str, Any]) -> set[str]:
    keys = {i["option"] for i in entry["inputs"] if i.get("option")}
    keys |= {i["override_option"] for i in entry["inputs"] if i.get("override_option")}
    keys |= {o["option"] for o in entry["outputs"] if o.get("option")}
    keys |= {p["key"] for p in entry["parameters"]}
    keys |= {o["key"] for o in entry["options"]}
    return keys


def _problems(entry: dict[str, Any], cls: Any) -> list[str]:
    schema = cls.hit
    got = set(schema.option_names())
    want = _expected_keys(entry)
    out = []
    if got != want:
        out.append(f"options: missing {sorted(want - got)}, unexpected {sorted(got - want)}")
    types: dict[str, str] = {}
    for rec in (*entry["inputs"], *entry["outputs"]):
        if rec.get("option"):
            types[rec["option"]] = rec["tensor_type"]
    for p in entry["parameters"]:
        types[p["key"]] = p["type"]
    for key, tname in types.items():
        f = schema.field(key)
        t = getattr(f, "type", None) if f is not None else None
        if t is not None and isinstance(t, type) and t.__name__ != tname:
            out.append(f"'{key}': type {t.__name__}, catalog says {tname}")
    for rec in (*entry["parameters"], *entry["options"]):
        f = schema.field(rec["key"])
        kinds = ("parameter", "parameters", "option", "buffer", "buffers")
        if f is not None and f.kind in kinds and f.required != bool(rec["required"]):
            out.append(f"'{rec['key']}': required={f.required}, catalog says {rec['required']}")
    return out


def test_registered_types_match_catalog() -> None:
    index = {(e["section"], e["type"]): e for e in CATALOG}
    problems = []
    for sec, name, cls in registry.items():
        entry = index.get((sec, name))
        if entry is None or getattr(cls, "hit", None) is None:
            continue
        problems += [f"[{sec}] {name}: {p}" for p in _problems(entry, cls)]
    assert not problems, "catalog mismatches:\n  " + "\n  ".join(problems)


def test_catalog_types_are_known() -> None:
    names = {(e["section"], e["type"]) for e in CATALOG}
    assert ("Models", "ComposedModel") in names and len(names) == len(CATALOG)
