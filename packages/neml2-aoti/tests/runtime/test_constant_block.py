"""A baked-stiffness artifact: the constant Jacobian block is folded into the metadata (no jvp
graph); ``neml2.aoti.Model`` and the ``AOTIModel`` shim return it as a ``(*batch, 6, 6)`` view of
the one block (``(6, 6)`` for an unbatched call), the layout py-eager and cpp-eager return, equal
to py-eager's Jacobian; a corrupted folded value is a FatalError naming it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import FatalError, Model
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
    seg = meta["segments"][0]
    assert seg["jacobian_pairs"][0]["batch_independent"] is True
    assert seg["graphs"] == {"value": "model.pt2"}
    leaf = baked / "model" / device.type / str(dtype).removeprefix("torch.")
    assert sorted(p.name for p in leaf.iterdir()) == ["model.pt2"]
    x = torch.rand(5, 6, dtype=dtype, device=device)
    m = Model(str(baked / "model"), device, dtype)
    _, J = m.jacobian({"strain": x})
    block = J["stress"]["strain"]
    assert block.shape == (5, 6, 6)
    assert block.stride()[0] == 0  # a view of the one block
    eager = neml2.load_model(scenario_file("elasticity"), "model", device=device, dtype=dtype)
    _, Je = eager.jacobian({"strain": SR2(x)})
    torch.testing.assert_close(block, Je["stress"]["strain"].data)
    _, J1 = m.jacobian({"strain": x[0]})  # unbatched in, unbatched out
    assert J1["stress"]["strain"].shape == (6, 6)
    torch.testing.assert_close(J1["stress"]["strain"], block[0])


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


def test_jvp_applies_the_folded_block(
    baked: Path, scenario_file: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    x = torch.rand(5, 6, dtype=dtype, device=device)
    v = torch.rand(5, 6, dtype=dtype, device=device)
    values, tangents = Model(str(baked / "model"), device, dtype).jvp({"strain": x}, {"strain": v})
    eager = neml2.load_model(scenario_file("elasticity"), "model", device=device, dtype=dtype)
    out, Je = eager.jacobian({"strain": SR2(x)})
    ref = (Je["stress"]["strain"].data @ v.unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(tangents["stress"], ref.detach())
    torch.testing.assert_close(values["stress"], out["stress"].data.detach())


def test_folded_value_of_the_wrong_size(
    baked: Path, tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = tmp_path / "model"
    shutil.copytree(baked / "model", root)
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    data["segments"][0]["jacobian_pairs"][0]["value"].pop()
    meta.write_text(json.dumps(data))
    with pytest.raises(FatalError, match=r"jacobian_pairs\[0\]\.value has 35 numbers, expected 36"):
        Model(str(root), device, dtype)
