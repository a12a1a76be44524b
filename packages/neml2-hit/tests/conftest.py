"""Shared helpers for the neml2-hit tests."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from neml2.hit import HitError

Check = Callable[..., HitError]

# make the shared hypothesis strategies (hit_strategies.py) importable under importlib mode
sys.path.insert(0, str(Path(__file__).parent))


def _check(
    exc: BaseException, *, file: str, line: int, col: int, reason: str, source: str | None = None
) -> HitError:
    """Assert ``exc`` is a HitError at file:line:col whose reason contains ``reason``."""
    assert isinstance(exc, HitError), f"expected HitError, got {type(exc).__name__}: {exc}"
    assert (exc.file, exc.line, exc.col) == (file, line, col), str(exc)
    assert reason in exc.reason, str(exc)
    lines = str(exc).split("\n")
    assert len(lines) == 3
    assert lines[0] == f"{file}:{line}:{col}: {exc.reason}"
    assert lines[1] == exc.source_line
    assert lines[2] == " " * (col - 1) + "^"
    if source is not None:
        assert exc.source_line == source
    return exc


@pytest.fixture
def check_error() -> Check:
    """``check_error(exc, file=, line=, col=, reason=, source=None)`` validates a HitError."""
    return _check
