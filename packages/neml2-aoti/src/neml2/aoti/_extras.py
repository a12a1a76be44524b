"""The optional extras of neml2-aoti and the check a command runs before it needs one.

The runtime needs torch only; ``neml2-compile`` needs the ``[compile]`` extra (neml2-models,
neml2-hit, numpy, filelock). :func:`check_extra` turns a missing extra into one line on stderr and exit
status 2 instead of an import traceback. The ``neml2-compile`` script starts in
:func:`neml2_compile`: ``neml2.aoti.compile`` itself imports neml2-models, so the check runs
before that package is imported.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

__all__ = ["EXIT_MISSING_EXTRA", "EXTRAS", "check_extra", "missing_module", "neml2_compile"]

#: extra -> the modules it provides (checked in this order)
EXTRAS: dict[str, tuple[str, ...]] = {"compile": ("neml2.models", "neml2.hit", "numpy", "filelock")}

#: exit status of a command whose extra is not installed
EXIT_MISSING_EXTRA = 2


def missing_module(extra: str) -> str | None:
    """The first module of ``extra`` that cannot be found, or None when all can."""
    for name in EXTRAS[extra]:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):  # a parent package missing, or a broken entry
            return name
    return None


def check_extra(prog: str, extra: str) -> int:
    """0 when ``extra`` is installed; else print one line naming it to stderr and return 2."""
    module = missing_module(extra)
    if module is None:
        return 0
    print(
        f'{prog}: needs the {extra} extra: pip install "neml2-aoti[{extra}]" '
        f"(missing module {module})",
        file=sys.stderr,
    )
    return EXIT_MISSING_EXTRA


def neml2_compile(argv: Sequence[str] | None = None) -> int:
    """The ``neml2-compile`` script: :func:`neml2.aoti.compile.cli.main` once the extra is there."""
    status = check_extra("neml2-compile", "compile")
    if status:
        return status
    from neml2.aoti.compile.cli import main

    return main(argv)
