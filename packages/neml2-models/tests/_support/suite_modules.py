"""The test modules of this suite, loaded by path, for tests that read their tables (``CASES``,
``COVERED_TYPES``): the registry-coverage and batch-shape checks."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def suite_modules(*, skip: Path) -> Iterator[tuple[Path, object]]:
    """``(path, module)`` of every ``test_*.py`` under the suite except ``skip`` (the caller),
    each loaded once per process under a name derived from its path."""
    for path in sorted(TESTS.rglob("test_*.py")):
        if path.resolve() == skip.resolve():
            continue
        name = "neml2_tests_" + "_".join(path.relative_to(TESTS).with_suffix("").parts)
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        yield path, module
