"""Fixtures of the neml2-compile tests: the shared compiled scenarios and a graph loader.

Scenario artifacts come from ``$NEML2_TEST_ARTIFACTS`` (prebuilt once per CI run by
``python -m neml2.aoti.compile.testing``) or are compiled on demand through the compile cache.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

pytest.importorskip("neml2.models")

from neml2.aoti.compile.testing import scenario_artifact, scenario_input

#: relative tolerance of graph values against py-eager, per dtype
RTOL = {torch.float64: 1e-10, torch.float32: 1e-5}


@pytest.fixture(scope="session")
def dtype_name(dtype: torch.dtype) -> str:
    """``"float64"`` / ``"float32"``."""
    return str(dtype).removeprefix("torch.")


@pytest.fixture(scope="session")
def rtol(dtype: torch.dtype) -> float:
    """Relative tolerance of a compiled graph against py-eager in this dtype."""
    return RTOL[dtype]


@pytest.fixture(scope="session")
def artifact(dtype_name: str) -> Callable[[str], Path]:
    """``artifact(scenario)`` → the scenario's artifact folder with this dtype's leaf."""
    cache: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in cache:
            cache[name] = scenario_artifact(name, dtype_name)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def graph(artifact: Callable[[str], Path], dtype_name: str) -> Callable[[str, str], Any]:
    """``graph(scenario, file)`` → the graph loaded with torch's own AOTI package loader, called
    with the runtime's batch padding (:func:`call`)."""
    loaded: dict[tuple[str, str], Any] = {}

    def get(name: str, file: str) -> Any:
        key = (name, file)
        if key not in loaded:
            root = artifact(name)
            min_batch = int(json.loads((root / "metadata.json").read_text())["min_batch"])
            fn = torch._inductor.aoti_load_package(str(root / "cpu" / dtype_name / file))
            signature = json.loads(fn.get_metadata()["neml2_signature"])
            rows = signature.get("batch_rows", {"multiple": 1, "min": 1})
            loaded[key] = lambda *a: call(fn, min_batch, *a, rows=rows)
        return loaded[key]

    return get


@pytest.fixture(scope="session")
def scenario_file() -> Callable[[str], Path]:
    """``scenario_file(name)`` → the shared ``scenarios/<name>.i``."""
    return scenario_input


def call(
    fn: Any, min_batch: int, *args: torch.Tensor, rows: dict[str, int] | None = None
) -> list[torch.Tensor]:
    """Call a graph as the runtime does: a batch below ``min_batch`` (ARTIFACT.md) or one the
    graph does not take (its signature's ``rows`` = ``batch_rows``: a multiple of ``multiple``,
    at least ``min``) is padded by repeating its rows, and the results are cut back to the
    batch."""
    b = args[0].shape[0]
    m, least = (rows["multiple"], rows["min"]) if rows else (1, 1)
    padded_rows = max(min_batch, least, -(-b // m) * m)
    if padded_rows == b:
        return list(fn(*args))
    reps = -(-padded_rows // b)
    padded = [a.repeat(reps, *([1] * (a.ndim - 1)))[:padded_rows] for a in args]
    return [r[:b] for r in fn(*padded)]


def assert_close(
    got: torch.Tensor, want: torch.Tensor, rtol: float, what: str, scale: float = 0.0
) -> None:
    """``|got - want| <= rtol * max(max|want|, scale)``, same shape and dtype.

    ``scale``: magnitude of the terms that cancel in ``want`` (e.g. a residual ``u - u~1 - …``),
    when round-off is relative to them rather than to the result.
    """
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    scale = max(float(want.abs().max()) if want.numel() else 0.0, scale)
    err = float((got - want).abs().max()) if want.numel() else 0.0
    assert err <= rtol * max(scale, 1e-300), f"{what}: max error {err:.3e} (scale {scale:.3e})"


@pytest.fixture(scope="session")
def close() -> Callable[..., None]:
    """The :func:`assert_close` helper as a fixture."""
    return assert_close
