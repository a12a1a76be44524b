"""Fixtures of the runtime tests: the shared scenarios, their compiled artifacts and inputs.

Artifacts follow :mod:`neml2.aoti.compile.testing` (shared flags and layout): prebuilt in
``$NEML2_TEST_ARTIFACTS`` by the nox ``tests`` session, else compiled on demand through the
neml2-compile cache (slow the first time on a machine, a copy afterwards).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from runtime._scenarios import (
    artifact_folder,
    make_inputs,
    relax_eager_for_float32,
    relax_for_float32,
    scenario_input,
)


@pytest.fixture(scope="session")
def _artifact_dirs(
    tmp_path_factory: pytest.TempPathFactory, device: torch.device, dtype: torch.dtype
) -> Callable[[str], Path]:
    """Scenario name → folder holding ``model/`` and ``model_aoti.i`` (built once)."""
    done: dict[str, Path] = {}

    def get(scenario: str) -> Path:
        if scenario not in done:
            scratch = tmp_path_factory.getbasetemp() / "artifacts"
            done[scenario] = artifact_folder(scenario, device, dtype, scratch)
        return done[scenario]

    return get


@pytest.fixture(scope="session")
def artifact(_artifact_dirs: Callable[[str], Path]) -> Callable[[str], Path]:
    """Scenario name → its artifact root (``metadata.json`` + leaves)."""
    return lambda scenario: _artifact_dirs(scenario) / "model"


@pytest.fixture(scope="session")
def stub(_artifact_dirs: Callable[[str], Path]) -> Callable[[str], Path]:
    """Scenario name → the HIT stub neml2-compile wrote next to the artifact."""
    return lambda scenario: _artifact_dirs(scenario) / "model_aoti.i"


@pytest.fixture(scope="session")
def scenario_file() -> Callable[[str], Path]:
    """Scenario name → its input file (the py-eager reference)."""
    return scenario_input


@pytest.fixture(scope="session")
def scenario_inputs() -> Callable[[Any, int], dict[str, torch.Tensor]]:
    """``(model, batch)`` → inputs for a compiled :class:`neml2.aoti.Model`."""
    return lambda m, batch: make_inputs(
        m.input_names, m.input_base_shapes, batch, m.device, m.dtype
    )


@pytest.fixture(scope="session")
def compiled(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> Callable[[str], Any]:
    """Scenario name → a new :class:`neml2.aoti.Model` (float32: relaxed Newton tolerances)."""
    from neml2.aoti import Model

    return lambda scenario: relax_for_float32(Model(artifact(scenario), device, dtype))


@pytest.fixture(scope="session")
def eager(device: torch.device, dtype: torch.dtype) -> Callable[[str], Any]:
    """Scenario name → its py-eager model (float32: the same relaxed Newton tolerances)."""
    import neml2

    def load(scenario: str) -> Any:
        m = neml2.load_model(scenario_input(scenario), "model", device=device, dtype=dtype)
        return relax_eager_for_float32(m, dtype)

    return load
