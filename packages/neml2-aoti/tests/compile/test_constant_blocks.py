"""Constant Jacobian blocks (a baked stiffness): found on the exported jvp graph and flagged
``batch_independent``; when every block is constant their values move into the metadata and the
jvp graph is dropped, otherwise it is re-exported with them as ``(1, ...)``. Exports only, no
lowering."""

from __future__ import annotations

from typing import Any

import torch

import neml2
from neml2.aoti.compile._lower import export_graph, input_independent_outputs
from neml2.aoti.compile._pipeline import _constant_blocks_once
from neml2.aoti.compile._plan import Renames, plan
from neml2.aoti.compile._prepare import prepare
from neml2.tensors import SR2


def _jvp(scenario_file: Any, dtype: torch.dtype, promote: list[str]) -> tuple[Any, Any]:
    prep = prepare(scenario_file("elasticity"), model="model", dtype=dtype, promote=promote,
                   derivatives=["stress:strain"])  # fmt: skip
    pl = plan(prep, Renames(), 3, torch.zeros((), dtype=dtype))
    _, adapter, example = next(g for g in pl.graphs if g[0].endswith("_jvp.pt2"))
    return pl, (adapter, example)


def test_baked_stiffness_block_is_folded_into_the_metadata(
    scenario_file: Any, dtype: torch.dtype
) -> None:
    pl, (adapter, example) = _jvp(scenario_file, dtype, [])
    ep, mb = export_graph(adapter, example, True)
    assert input_independent_outputs(ep) == [False, True]  # stress depends on strain, block not
    assert _constant_blocks_once(adapter, ep, mb, pl.segment, example, True) is None
    assert "jvp" not in pl.segment["graphs"]  # no graph: value graph + folded constant
    pair = pl.segment["jacobian_pairs"][0]
    assert pair["batch_independent"] is True
    block = torch.tensor(pair["value"], dtype=torch.float64).reshape(6, 6)
    eager = neml2.load_model(scenario_file("elasticity"), "model", dtype=torch.float64)
    x = torch.rand(5, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    _, J = eager.jacobian({"strain": SR2(x)})
    rtol = 1e-12 if dtype == torch.float64 else 1e-6
    torch.testing.assert_close(block.expand(5, 6, 6), J["stress"]["strain"].data.detach(),
                               rtol=rtol, atol=0.0)  # fmt: skip


def test_partly_constant_blocks_stay_in_a_reexported_graph(
    scenario_file: Any, dtype: torch.dtype
) -> None:
    """A graph mixing constant and per-point blocks emits the constant ones as ``(1, ...)`` (the
    flag is set by hand here, on the one block of the baked model)."""
    _, (adapter, example) = _jvp(scenario_file, dtype, [])
    adapter.batch_independent = [True]
    ep, _ = export_graph(adapter, example, True)
    x = torch.rand(5, 6, dtype=dtype, generator=torch.Generator().manual_seed(1))
    stress, block = ep.module()(x)
    assert block.shape == (1, 6, 6)
    eager = neml2.load_model(scenario_file("elasticity"), "model", dtype=dtype)
    _, J = eager.jacobian({"strain": SR2(x)})
    torch.testing.assert_close(block.expand(5, 6, 6), J["stress"]["strain"].data.detach())
    torch.testing.assert_close(stress, eager.call_by_name({"strain": SR2(x)})["stress"].data)


def test_promoted_modulus_keeps_blocks_per_point(scenario_file: Any, dtype: torch.dtype) -> None:
    pl, (adapter, example) = _jvp(scenario_file, dtype, ["model.E"])
    ep, mb = export_graph(adapter, example, True)
    assert input_independent_outputs(ep) == [False, False]  # the block depends on E per point
    _constant_blocks_once(adapter, ep, mb, pl.segment, example, True)
    assert "batch_independent" not in pl.segment["jacobian_pairs"][0]
