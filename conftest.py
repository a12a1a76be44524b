"""Workspace-wide pytest options shared by every package's test suite.

``--device`` and ``--dtype`` select the point of the device x dtype matrix a
test run covers (nox passes them); tests receive them through the ``device``
and ``dtype`` fixtures instead of mutating torch's global defaults.

The shared scenario inputs live in the repository's ``scenarios/`` folder; this
file exports it as ``NEML2_SCENARIOS`` (a caller's value wins), so test modules,
the subprocesses they start and ``neml2.aoti.compile.testing.scenarios_dir``
all read the same folder. Tests get it as the ``scenarios_dir`` fixture, or at
import time as ``Path(os.environ["NEML2_SCENARIOS"])``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

# CI explores a fixed, reproducible set of examples (a red CI is never a dice roll); local runs
# keep hypothesis' random exploration and its example database.
settings.register_profile("neml2-ci", derandomize=True, database=None, print_blob=True)
if _CI:
    settings.load_profile("neml2-ci")

#: The shared scenario inputs (``scenarios/*.i``) of every package's tests, the C++ tests and the
#: benchmarks; exported before any test module is imported.
SCENARIOS = Path(
    os.environ.setdefault("NEML2_SCENARIOS", str(Path(__file__).resolve().parent / "scenarios"))
)

_DTYPES = {"float64": torch.float64, "float32": torch.float32}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("neml2")
    group.addoption(
        "--device", default="cpu", help="torch device the tests run on (cpu, cuda, cuda:N)"
    )
    group.addoption(
        "--dtype", default="float64", choices=sorted(_DTYPES), help="floating dtype under test"
    )


def pytest_configure(config: pytest.Config) -> None:
    device = str(config.getoption("--device"))
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise pytest.UsageError(f"--device {device} requested but no CUDA device was found")


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> torch.device:
    """The device under test."""
    return torch.device(str(request.config.getoption("--device")))


@pytest.fixture(scope="session")
def dtype(request: pytest.FixtureRequest) -> torch.dtype:
    """The floating dtype under test."""
    return _DTYPES[str(request.config.getoption("--dtype"))]


@pytest.fixture(scope="session")
def scenarios_dir() -> Path:
    """The shared scenario folder (``$NEML2_SCENARIOS``, by default ``<repository>/scenarios``)."""
    return SCENARIOS


@pytest.fixture(scope="session")
def ci() -> bool:
    """True when running under CI (more examples for property tests)."""
    return _CI
