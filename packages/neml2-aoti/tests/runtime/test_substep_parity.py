"""Substepping parity: the compiled runtime's cut-and-retry against py-eager's.

The ``scalar_implicit`` artifact with ``max_substepping_level`` raised in its metadata (the
runtime reads it at load; no graph changes) and the eager model with the same option: random steps
of 2 dt x^3 + x - x~1 = 0 from the guess x = 1 with a small iteration cap need up to a few halvings,
row by row. Both routes run the same masked solves on the same spans, so values agree to rounding
(float64: exactly here), and an exhausted level fails alike in both.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import ConvergenceError, Model
from neml2.models.common.implicit_update import ImplicitUpdate
from runtime._scenarios import F32_SOLVER

#: iteration caps under which some rows need halvings (``ok``: three levels suffice) or the
#: allowed levels run out (``exhausted``), per dtype (float32 runs the relaxed F32_SOLVER)
MITERS = {torch.float64: {"ok": 9, "exhausted": 7}, torch.float32: {"ok": 7, "exhausted": 6}}


def _models(
    artifact: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    tmp_path: Path,
    device: torch.device,
    dtype: torch.dtype,
    level: int,
    miters: int,
) -> tuple[Model, ImplicitUpdate]:
    root = tmp_path / f"level{level}" / "model"
    shutil.copytree(artifact("scalar_implicit"), root)
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    (seg,) = (s for s in data["segments"] if s["kind"] == "implicit")
    seg["max_substepping_level"] = level
    meta.write_text(json.dumps(data, indent=1))
    compiled = Model(root, device, dtype)
    eager = neml2.load_model(scenario_file("scalar_implicit"), "model", device=device, dtype=dtype)
    assert isinstance(eager, ImplicitUpdate)
    eager.max_substepping_level = level
    eager.solver.max_its = miters
    if dtype == torch.float32:
        eager.solver.abs_tol, eager.solver.rel_tol = F32_SOLVER["atol"], F32_SOLVER["rtol"]
        compiled.set_solver_config(atol=F32_SOLVER["atol"], rtol=F32_SOLVER["rtol"])
    compiled.set_solver_config(miters=miters)
    return compiled, eager


def _steps(n: int, device: torch.device, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    t1 = 10 * torch.rand(n, generator=g, dtype=torch.float64)
    x = {
        "x": torch.ones(n, dtype=torch.float64),
        "x~1": 0.5 + 1.5 * torch.rand(n, generator=g, dtype=torch.float64),
        "t": t1 + 150 * torch.rand(n, generator=g, dtype=torch.float64),
        "t~1": t1,
    }
    return {k: v.to(device=device, dtype=dtype) for k, v in x.items()}


def test_substepped_values_match_eager(
    artifact: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    tmp_path: Path,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    miters = MITERS[dtype]["ok"]
    compiled, eager = _models(artifact, scenario_file, tmp_path, device, dtype, 3, miters)
    x = _steps(64, device, dtype)
    got = compiled.forward(x)["x"]
    with torch.no_grad():
        ref = eager.value(x)["x"].data
    assert eager.last_result.max_level >= 1  # rows were halved
    rtol, atol = (1e-12, 0.0) if dtype == torch.float64 else (5e-4, 1e-6)
    torch.testing.assert_close(got, ref, rtol=rtol, atol=atol)


@pytest.mark.parametrize("level", [1, 2])
def test_exhausted_substepping_fails_alike(
    artifact: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    tmp_path: Path,
    device: torch.device,
    dtype: torch.dtype,
    level: int,
) -> None:
    miters = MITERS[dtype]["exhausted"]
    compiled, eager = _models(artifact, scenario_file, tmp_path, device, dtype, level, miters)
    x = _steps(64, device, dtype)
    with pytest.raises(ConvergenceError, match="substepping exhausted") as c_err:
        compiled.forward(x)
    with pytest.raises(ConvergenceError, match="substepping exhausted") as e_err, torch.no_grad():
        eager.value(x)
    tail = str(c_err.value).split("substepping exhausted")[1]
    assert str(e_err.value).endswith(tail)  # same count, level and maximum
