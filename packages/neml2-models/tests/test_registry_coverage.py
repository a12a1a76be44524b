"""Every registered type of neml2-models appears in at least one test case.

Covered types are collected from the case tables of the test modules under this directory
(``CASES``: lists of :class:`neml2.models.testing.ModelCase`, whose HIT text names the types),
from explicit ``COVERED_TYPES`` sets (non-model sections) and from ``type = X`` lines of HIT
files (``*.i``) shipped with the tests.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from suite_modules import suite_modules

from neml2._registry import registry
from neml2.models.testing import ModelCase, covered_types

HERE = Path(__file__).parent
SRC = (HERE.parent / "src").resolve()
_TYPE_RE = re.compile(r"^\s*type\s*:?=\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def collect_covered() -> set[str]:
    """Types named by case tables, COVERED_TYPES sets and HIT files under tests/."""
    out: set[str] = set()
    for _, mod in suite_modules(skip=Path(__file__)):
        cases = getattr(mod, "CASES", [])
        out |= covered_types([c for c in cases if isinstance(c, ModelCase)])
        out |= set(getattr(mod, "COVERED_TYPES", ()))
    for path in HERE.rglob("*.i"):
        out |= set(_TYPE_RE.findall(path.read_text()))
    return out


def _ours(cls: type) -> bool:
    mod = sys.modules.get(cls.__module__)
    file = getattr(mod, "__file__", None)
    return file is not None and Path(file).resolve().is_relative_to(SRC)


def test_every_registered_type_is_covered() -> None:
    covered = collect_covered()
    uncovered = sorted(
        f"[{sec}] {name}"
        for sec, name, cls in registry.items()
        if _ours(cls) and name not in covered
    )
    assert not uncovered, (
        f"{len(uncovered)} registered type(s) have no test case (add a ModelCase to a CASES table "
        f"or list the type in COVERED_TYPES):\n  " + "\n  ".join(uncovered)
    )
