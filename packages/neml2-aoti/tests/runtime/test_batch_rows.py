"""Graphs that take only some batches (their signature's ``batch_rows``, ARTIFACT.md §1).

The scalarized Newton graphs of a CPU leaf take multiples of 16 rows, at least 32, so that
Inductor's vector loop needs no remainder loop: called on other batches through torch's own
loader they leave the rows past the last multiple unwritten. The runtime pads each call
(``Graph::run``) and aligns its row blocks to the multiple, so every batch gives the rows it
would give inside a larger batch.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from neml2.aoti import Model
from runtime._scenarios import eager_value, relax_for_float32

Inputs = Callable[[Model, int], dict[str, torch.Tensor]]


def _newton_graphs(root: Path) -> list[str]:
    meta = json.loads((root / "metadata.json").read_text())
    (seg,) = [s for s in meta["segments"] if s.get("kind") == "implicit"]
    return [seg["graphs"][k] for k in ("jacobian", "residual") if k in seg["graphs"]]


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    """Route parity (test_parity.py): 1e-10 relative in float64, 5e-4 in float32 (relaxed
    Newton tolerances), relative to the largest entry."""
    tol = 1e-10 if want.dtype == torch.float64 else 5e-4
    torch.testing.assert_close(got, want, rtol=tol, atol=tol * float(want.abs().max()))


def test_newton_graphs_take_multiples_of_16_rows(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    if device.type != "cpu":
        pytest.skip("only CPU leaves take their rows in multiples")
    dtype_name = str(dtype).removeprefix("torch.")
    leaf = artifact("chaboche") / "cpu" / dtype_name
    names = _newton_graphs(artifact("chaboche"))
    assert names
    for name in names:
        loaded = torch._inductor.aoti_load_package(str(leaf / name))
        signature = json.loads(loaded.get_metadata()["neml2_signature"])
        assert signature["batch_rows"] == {"multiple": 16, "min": 32}, name


@pytest.mark.parametrize("chunk_rows", [0, 40])  # 40: blocks of 16, 32 or 48 rows
def test_any_batch_matches_eager(
    artifact: Callable[[str], Path],
    eager: Callable[[str], Any],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
    chunk_rows: int,
) -> None:
    """Batches below the minimum, between multiples and over several blocks whose last one is
    padded, forward and jacobian, against py-eager on the same rows."""
    model = relax_for_float32(Model(artifact("chaboche"), device, dtype))
    model.set_solver_config(chunk_rows=chunk_rows)
    reference = eager("chaboche")
    full = scenario_inputs(model, 99)
    for batch in (1, 15, 17, 33, 99):
        x = {k: v[:batch] for k, v in full.items()}
        got, want = model.forward(x), reference.call_by_name(x)
        for k in got:
            assert got[k].shape[0] == batch, k
            _close(got[k], eager_value(want[k]))
        (_, J), (_, J_want) = model.jacobian(x), reference.jacobian(x)
        _close(J["stress"]["strain"], eager_value(J_want["stress"]["strain"]))


def test_schema_version_2_artifacts_still_load(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
    tmp_path: Path,
) -> None:
    """Version 2 graphs record no batch_rows (they take any batch); a version-2 artifact of
    graphs that do take any batch still loads and runs."""
    root = tmp_path / "model"
    shutil.copytree(artifact("elasticity"), root)
    meta = json.loads((root / "metadata.json").read_text())
    assert meta["schema_version"] == 3
    meta["schema_version"] = 2
    (root / "metadata.json").write_text(json.dumps(meta))
    old, new = Model(root, device, dtype), Model(artifact("elasticity"), device, dtype)
    x = scenario_inputs(new, 7)
    torch.testing.assert_close(old.forward(x)["stress"], new.forward(x)["stress"], rtol=0, atol=0)
