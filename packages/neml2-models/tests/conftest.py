"""Shared setup for the neml2-models tests.

Test folders are not packages and pytest runs in importlib mode, so the helper modules shared
between test modules (``_support/*.py``: closed-form scenarios, independent references, common
HIT inputs, Newton test problems) are made importable by name here. The Newton test problems are
also exposed as fixtures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from neml2.es import AxisLayout

sys.path.insert(0, str(Path(__file__).parent / "_support"))

from newton_problems import SCALAR, TWO_GROUP, BackwardEuler, Coupled, Cubic, Scripted


@pytest.fixture
def problems() -> dict[str, type]:
    """The Newton test problem classes by name."""
    return {
        "BackwardEuler": BackwardEuler,
        "Cubic": Cubic,
        "Scripted": Scripted,
        "Coupled": Coupled,
    }


@pytest.fixture
def scalar_layout() -> AxisLayout:
    """The one-scalar layout ``x`` of the Newton test problems."""
    return SCALAR


@pytest.fixture
def two_group_layout() -> AxisLayout:
    """The block ``x`` (S sites) + dense ``y`` (2) layout of :class:`Coupled`."""
    return TWO_GROUP
