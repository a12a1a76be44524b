"""Sphinx extension: the input-file syntax reference, generated from the model registry.

At ``builder-inited`` it writes ``generated/syntax/index.rst`` and one page per HIT section
(``Models``, ``Solvers``, ...), listing every registered type with its docstring and its options
as ``neml2-syntax`` reports them (:func:`neml2.cli._syntax.records`): name, kind, type, default
and description. A page is rewritten only when its text changes, so incremental builds stay
incremental.
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from pathlib import Path
from typing import Any

from plain_text import escape_inline
from sphinx.application import Sphinx

from neml2._registry import registry
from neml2.cli._syntax import records

_KIND = {"INPUT": "input variable", "OUTPUT": "output variable", "PARAMETER": "parameter"}


def _cell(text: str | None) -> str:
    """One list-table cell: a single line (line breaks would end the cell)."""
    return escape_inline(" ".join((text or "").split())) or "\u2014"


def _literal(text: str | None) -> str:
    return f"``{text}``" if text else "\u2014"


def _type_section(record: dict[str, Any], cls: type) -> list[str]:
    name = record["type"]
    lines = [f".. _syntax-{record['section']}-{name}:", "", name, "-" * len(name), ""]
    doc = inspect.getdoc(cls) or ""
    lines += [*escape_inline(doc).splitlines(), ""] if doc else []
    lines += [f"Python class: ``{cls.__module__}.{cls.__qualname__}``", ""]
    options = record.get("options", [])
    if not options:
        return [*lines, "No options.", ""]
    lines += [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 20 14 12 16 38",
        "",
        "   * - option",
        "     - kind",
        "     - type",
        "     - default",
        "     - description",
    ]
    for o in options:
        default = "(required)" if o["required"] else _literal(o["value"])
        lines += [
            f"   * - ``{o['name']}``",
            f"     - {_KIND.get(o['ftype'], 'option')}",
            f"     - {o['type']}",
            f"     - {default}",
            f"     - {_cell(o['doc'])}",
        ]
    return [*lines, ""]


def _pages() -> dict[str, str]:
    classes = {(s, n): c for s, n, c in registry.items()}
    by_section: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in records():
        by_section[rec["section"]].append(rec)
    pages: dict[str, str] = {}
    for section, recs in sorted(by_section.items()):
        title = f"[{section}]"
        body = [
            f".. _syntax-{section}:",
            "",
            title,
            "=" * len(title),
            "",
            f"{len(recs)} {'type is' if len(recs) == 1 else 'types are'} registered in the "
            f"``[{section}]`` section.",
            "",
        ]
        for rec in recs:
            body += _type_section(rec, classes[(section, rec["type"])])
        pages[section] = "\n".join(body)
    count = sum(len(v) for v in by_section.values())
    index = [
        "Input-file syntax",
        "=================",
        "",
        f"Every type an input file can name ({count} in all), by section, with its options: the "
        "same records ``neml2-syntax`` prints as JSON. Generated from the registry when the site "
        "is built.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
        *(f"   {section}" for section in sorted(by_section)),
        "",
    ]
    pages["index"] = "\n".join(index)
    return pages


def _write(app: Sphinx) -> None:
    out = Path(app.srcdir) / "generated" / "syntax"
    out.mkdir(parents=True, exist_ok=True)
    pages = _pages()
    for stale in out.glob("*.rst"):
        if stale.stem not in pages:
            stale.unlink()
    for name, text in pages.items():
        path = out / f"{name}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _write)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
