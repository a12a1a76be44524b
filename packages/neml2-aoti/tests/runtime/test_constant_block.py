"""A baked-stiffness artifact: the Jacobian block leaves the graph once (``batch_independent``);
``neml2.aoti.Model`` returns it as ``(6, 6)``, the ``AOTIModel`` shim as a ``(*batch, 6, 6)`` view,
both equal to py-eager's Jacobian."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import Model
from neml2.aoti.compile import compile_model
from neml2.tensors import SR2


@pytest.fixture(scope="module")
def baked(
    scenario_file: Callable[[str], Path],
    tmp_path_factory: pytest.TempPathFactory,
    device: torch.device,
    dtype: torch.dtype,
) -> Path:
    """``elasticity.i`` compiled with its moduli baked in and ``-d stress:strain`` (cached)."""
    out = tmp_path_factory.mktemp("baked")
    compile_model(scenario_file("elasticity"), model="model", output_dir=out,
                  devices=[device.type], dtype=str(dtype).removeprefix("torch."),
                  derivatives=["stress:strain"], progress=None)  # fmt: skip
    return out


def test_block_is_flagged_and_returned_once(
    baked: Path, scenario_file: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    meta = json.loads((baked / "model" / "metadata.json").read_text())
    assert meta["segments"][0]["jacobian_pairs"][0]["batch_independent"] is True
    x = torch.rand(5, 6, dtype=dtype, device=device)
    _, J = Model(str(baked / "model"), device, dtype).jacobian({"strain": x})
    block = J["stress"]["strain"]
    assert block.shape == (6, 6)
    eager = neml2.load_model(scenario_file("elasticity"), "model", device=device, dtype=dtype)
    _, Je = eager.jacobian({"strain": SR2(x)})
    torch.testing.assert_close(block.expand(5, 6, 6), Je["stress"]["strain"].data)


@pytest.mark.parametrize("batch", [(4,), (2, 3)])
def test_shim_expands_to_the_batch(
    baked: Path,
    scenario_file: Callable[[str], Path],
    device: torch.device,
    dtype: torch.dtype,
    batch: tuple[int, ...],
) -> None:
    shim = neml2.load_model(baked / "model_aoti.i", "model", device=device, dtype=dtype)
    eager = neml2.load_model(scenario_file("elasticity"), "model", device=device, dtype=dtype)
    x = SR2(torch.rand(*batch, 6, dtype=dtype, device=device))
    _, J = shim.jacobian({"strain": x})
    _, Je = eager.jacobian({"strain": x})
    got, ref = J["stress"]["strain"], Je["stress"]["strain"].data
    assert got.shape == ref.shape == (*batch, 6, 6)
    assert got.stride()[: len(batch)] == (0,) * len(batch)  # a view of the one block
    torch.testing.assert_close(got, ref)
