"""Row blocks of the implicit-segment graphs (``SolverConfig::chunk_rows``).

Above ``chunk_rows`` batch rows the residual/Jacobian graphs run on equal row blocks; Newton and
the IFT solve each block's Jacobians in place (no concatenated copy). Rows are independent, so
values and derivatives match the one-call evaluation; the graphs' intermediates (about 1 KB per
row for Chaboche) are then bounded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from neml2.aoti import FatalError, Model
from runtime._scenarios import relax_for_float32

Inputs = Callable[[Model, int], dict[str, torch.Tensor]]

# 37 rows in blocks of at most 4: ten blocks of 3 or 4 rows (min_batch 2 allows them)
BATCH, SMALL_BLOCK = 37, 4


def _close(a: torch.Tensor, b: torch.Tensor) -> None:
    tol = 1e-12 if a.dtype == torch.float64 else 1e-5
    torch.testing.assert_close(a, b, rtol=tol, atol=tol * float(b.abs().max()))


def _models(artifact: Callable[[str], Path], scenario: str, device: torch.device,
            dtype: torch.dtype) -> tuple[Model, Model]:  # fmt: skip
    blocks, whole = (relax_for_float32(Model(artifact(scenario), device, dtype)) for _ in "ab")
    blocks.set_solver_config(chunk_rows=SMALL_BLOCK)
    whole.set_solver_config(chunk_rows=0)
    return blocks, whole


def test_chaboche_values_and_jacobian_unchanged(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    blocks, whole = _models(artifact, "chaboche", device, dtype)
    x = scenario_inputs(whole, BATCH)
    want, got = whole.forward(x), blocks.forward(x)
    assert want.keys() == got.keys()
    for k in want:
        _close(got[k], want[k])
    (_, J_want), (_, J_got) = whole.jacobian(x), blocks.jacobian(x)
    _close(J_got["stress"]["strain"], J_want["stress"]["strain"])


def test_scalar_implicit_parameter_derivatives_unchanged(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    blocks, whole = _models(artifact, "scalar_implicit", device, dtype)
    x = scenario_inputs(whole, BATCH)
    x["x~1"] = 0.2 + x["x~1"].abs() * 50  # x~1 in [0.2, 0.7]: a real cubic root per row
    x["x"] = x["x~1"].clone()
    _close(blocks.forward(x)["x"], whole.forward(x)["x"])
    name = "implicit_rate.rate.scaling"
    (y_got, P_got), (y_want, P_want) = blocks.param_jacobian(x), whole.param_jacobian(x)
    _close(y_got["x"], y_want["x"])
    _close(P_got["x"][name], P_want["x"][name])
    (_, J_got), (_, J_want) = blocks.jacobian(x), whole.jacobian(x)
    for n in J_want["x"]:
        _close(J_got["x"][n], J_want["x"][n])


def test_default_and_bad_value(artifact: Callable[[str], Path]) -> None:
    m = Model(artifact("chaboche"))
    assert m.solver_config["chunk_rows"] == -1  # CPU default: the artifact's choice
    with pytest.raises(FatalError, match=r"chunk_rows must be >= 0 \(0: no row blocks\) or -1"):
        m.set_solver_config(chunk_rows=-2)
    assert m.solver_config["chunk_rows"] == -1


PROBE = """
import sys
sys.path.insert(0, sys.argv[4])
import neml2.aoti
from runtime._scenarios import make_inputs

def peak_kb():  # this process's own high-water mark (ru_maxrss would include the parent's)
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith("VmHWM:")).split()[1])

m = neml2.aoti.Model(sys.argv[1])
m.set_solver_config(chunk_rows=int(sys.argv[2]))
x = make_inputs(m.input_names, m.input_base_shapes, int(sys.argv[3]), m.device, m.dtype)
call = m.forward if sys.argv[5] == "forward" else m.jacobian
before = peak_kb()
call(x)
print(peak_kb() - before)
"""


def _peak_kb(root: Path, chunk_rows: int, rows: int, call: str, keep_large: bool = False) -> int:
    """Peak resident growth (KB) of one ``call`` ("forward" or "jacobian") of the artifact at
    ``root`` on ``rows`` rows, in a new process (PROBE)."""
    tests = str(Path(__file__).resolve().parents[1])
    args = [str(root), str(chunk_rows), str(rows), tests, call]
    env = {k: v for k, v in os.environ.items() if k != "NEML2_KEEP_LARGE_ALLOCATIONS"}
    if keep_large:
        env["NEML2_KEEP_LARGE_ALLOCATIONS"] = "1"
    run = subprocess.run([sys.executable, "-c", PROBE, *args], env=env,
                         capture_output=True, text=True, check=True)  # fmt: skip
    return int(run.stdout.split()[-1])


def _with_segment_key(src: Path, dst: Path, key: str, value: object) -> Path:
    """A copy of artifact ``src`` whose implicit segment records ``key = value``."""
    shutil.copytree(src, dst)
    meta = json.loads((dst / "metadata.json").read_text())
    (seg,) = meta["segments"]
    seg[key] = value
    (dst / "metadata.json").write_text(json.dumps(meta))
    return dst


def test_rows_independent_must_be_a_bool(artifact: Callable[[str], Path], tmp_path: Path) -> None:
    bad = _with_segment_key(artifact("chaboche"), tmp_path / "m", "rows_independent", "yes")
    with pytest.raises(FatalError, match="rows_independent"):
        Model(bad)


def test_row_blocks_bound_the_graph_memory(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype, tmp_path: Path
) -> None:
    """Peak resident growth (VmHWM) of one Chaboche jacobian call at 32768 rows, each in a new
    process, with the Newton graphs lowered as exported (``--no-scalarize``). Newton's own state
    (the (B, 19, 19) matrices, factors, sensitivities) is about 13 KB per row either way; the
    one-call graphs add about 1 KB per row of intermediates (about 36 MB here) that blocks of 512
    rows do not. A segment whose rows are not known to be independent is never split, so its
    peak is a one-call peak; nor is, with the automatic setting (-1) and large allocations kept
    in the heap (``NEML2_KEEP_LARGE_ALLOCATIONS=1``), a segment that records a block of the whole
    batch. Without that policy the automatic block is capped at 5809 rows (a block's 19 x 19
    float64 matrices within 16 MiB: six blocks here), so it saves like blocks do.

    Each comparison asks for at least 0.5 KB per row (16 MB): a one-call peak varies between
    processes by up to one (B, 19, 19) matrix (94 MB, whether the allocator still holds the
    previous one), so comparisons against half of another peak difference would be noise."""
    if device.type != "cpu" or dtype != torch.float64 or not Path("/proc/self/status").exists():
        pytest.skip("resident memory (Linux /proc) of the CPU float64 leaf")
    exported = artifact("chaboche_exported")
    coupled = _with_segment_key(exported, tmp_path / "coupled", "rows_independent", False)
    rows = 32768
    saved = rows // 2  # KB: 0.5 KB per row

    def peak_kb(root: Path, chunk_rows: int, keep_large: bool = False) -> int:
        return _peak_kb(root, chunk_rows, rows, "jacobian", keep_large)

    blocks, whole = peak_kb(exported, 512), peak_kb(exported, 0)
    assert whole - blocks > saved, (blocks, whole)  # blocks save the one-call intermediates
    never_split = peak_kb(coupled, 512)
    assert never_split - blocks > saved, (blocks, never_split)
    recorded = _with_segment_key(exported, tmp_path / "recorded", "chunk_rows", rows)
    kept_blocks, kept_recorded = peak_kb(exported, 512, True), peak_kb(recorded, -1, True)
    assert kept_recorded - kept_blocks > saved, (kept_blocks, kept_recorded)
    capped = peak_kb(recorded, -1)
    assert whole - capped > saved, (capped, whole)


def test_recorded_block_must_be_a_count(artifact: Callable[[str], Path], tmp_path: Path) -> None:
    with pytest.raises(FatalError, match=r"chunk_rows must be >= 0, got -3"):
        Model(_with_segment_key(artifact("chaboche"), tmp_path / "m", "chunk_rows", -3))


def test_automatic_blocks_follow_the_artifact(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
    tmp_path: Path,
) -> None:
    """With the automatic setting, a recorded block of 4 rows (ten blocks) gives the one-call
    results."""
    small = _with_segment_key(artifact("chaboche"), tmp_path / "m", "chunk_rows", SMALL_BLOCK)
    blocks = relax_for_float32(Model(small, device, dtype))
    whole = relax_for_float32(Model(artifact("chaboche"), device, dtype))
    whole.set_solver_config(chunk_rows=0)
    assert blocks.solver_config["chunk_rows"] == -1
    x = scenario_inputs(whole, BATCH)
    want, got = whole.forward(x), blocks.forward(x)
    for k in want:
        _close(got[k], want[k])


def test_forward_keeps_one_block_of_newton_matrices(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    """A forward call needs no Jacobian after its solve (no IFT follows), so each row block's
    Newton matrices are freed once that block's step is solved. Chaboche forward at 32768 rows
    (scalarized graphs, no per-row intermediates), each call in a new process: in one block the
    (B, 19, 19) float64 matrices (94 MB) are resident at once; in blocks of 512 rows only one
    block's (1.5 MB) is. The comparison asks for half of that matrix (47 MB): a peak varies
    between processes by up to one matrix, and blocks that kept every matrix until the next
    iteration (as a derivative call does, for the IFT) would save nothing."""
    if device.type != "cpu" or dtype != torch.float64 or not Path("/proc/self/status").exists():
        pytest.skip("resident memory (Linux /proc) of the CPU float64 leaf")
    rows = 32768
    matrix_kb = rows * 19 * 19 * 8 // 1024
    whole = _peak_kb(artifact("chaboche"), 0, rows, "forward")
    blocks = _peak_kb(artifact("chaboche"), 512, rows, "forward")
    assert whole - blocks > matrix_kb // 2, (blocks, whole)
