"""Bad input to ``neml2.aoti.Model``: each error is a FatalError naming the thing at fault."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from neml2.aoti import FatalError, Model

Inputs = dict[str, torch.Tensor]


@pytest.fixture
def elastic(artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype) -> Model:
    return Model(artifact("elasticity"), device, dtype)


@pytest.fixture
def strain(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    return torch.linspace(-1e-3, 2e-3, 4 * 6, device=device, dtype=dtype).reshape(4, 6)


def test_missing_input(elastic: Model) -> None:
    with pytest.raises(FatalError, match="strain"):
        elastic.forward({})


def test_extra_input(elastic: Model, strain: torch.Tensor) -> None:
    with pytest.raises(FatalError, match="temperature"):
        elastic.forward({"strain": strain, "temperature": strain[:, 0]})


def test_wrong_base_shape(elastic: Model, strain: torch.Tensor) -> None:
    with pytest.raises(FatalError, match=r"strain.*\[6\]") as e:
        elastic.forward({"strain": strain[:, :3]})
    assert "3" in str(e.value)


def test_wrong_dtype(elastic: Model, strain: torch.Tensor) -> None:
    other = torch.float32 if strain.dtype == torch.float64 else torch.float64
    with pytest.raises(FatalError, match="strain") as e:
        elastic.forward({"strain": strain.to(other)})
    assert "float" in str(e.value).lower()


def test_wrong_device(elastic: Model, strain: torch.Tensor) -> None:
    with pytest.raises(FatalError, match="strain") as e:
        elastic.forward({"strain": strain.to("meta")})
    assert "meta" in str(e.value)


def test_not_a_tensor(elastic: Model) -> None:
    with pytest.raises(TypeError, match=r"inputs\['strain'\] is a list"):
        elastic.forward({"strain": [0.0] * 6})  # type: ignore[dict-item]


def test_unknown_parameter(elastic: Model, dtype: torch.dtype, device: torch.device) -> None:
    value = torch.tensor(1.0, dtype=dtype, device=device)
    with pytest.raises(FatalError, match=r"model\.nonexistent"):
        elastic.set_parameter("model.nonexistent", value)


def test_unknown_parameter_override(elastic: Model, strain: torch.Tensor) -> None:
    with pytest.raises(FatalError, match=r"model\.nonexistent"):
        elastic.forward({"strain": strain}, {"model.nonexistent": strain[0, 0]})


def _copy(root: Path, tmp_path: Path) -> Path:
    dst = tmp_path / root.name
    shutil.copytree(root, dst)
    return dst


def test_missing_artifact_folder(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(FatalError, match=str(missing)):
        Model(missing)


def test_missing_graph_file(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    leaf = root / device.type / str(dtype).removeprefix("torch.")
    graph = sorted(leaf.glob("*.pt2"))[0]
    graph.unlink()
    with pytest.raises(FatalError, match=graph.name):
        Model(root, device, dtype)


def test_missing_leaf_lists_available(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    shutil.rmtree(root / device.type / str(dtype).removeprefix("torch."))
    with pytest.raises(FatalError, match=str(dtype).removeprefix("torch.")):
        Model(root, device, dtype)


def test_corrupted_metadata(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    meta = root / "metadata.json"
    meta.write_text(meta.read_text()[:-40] + "\n{{{")
    with pytest.raises(FatalError, match=r"metadata\.json"):
        Model(root, device, dtype)


def test_other_schema_version(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    data["schema_version"] = 999
    meta.write_text(json.dumps(data))
    with pytest.raises(FatalError, match="neml2-compile") as e:
        Model(root, device, dtype)
    assert "999" in str(e.value)


def test_other_torch_version(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    data["torch_version"] = "1.0.0"
    meta.write_text(json.dumps(data))
    with pytest.raises(FatalError, match=r"1\.0\.0") as e:
        Model(root, device, dtype)
    assert "neml2-compile" in str(e.value)


def test_metadata_file_as_path(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype, strain: torch.Tensor
) -> None:
    """Seed 002 passes the metadata JSON: the folder holding it is the artifact."""
    root = artifact("elasticity")
    a = Model(root / "metadata.json", device, dtype).forward({"strain": strain})
    b = Model(root, device, dtype).forward({"strain": strain})
    assert torch.equal(a["stress"], b["stress"])


def test_v3_meta_json_name_as_path(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype, strain: torch.Tensor
) -> None:
    """NEML2 v3's documentation loads ``<folder>/<model>_meta.json``: the folder is the artifact
    (the file name need not exist); the resolved root is reported."""
    root = artifact("elasticity")
    m = Model(root / "model_meta.json", device, dtype)
    assert Path(m.artifact_root) == root
    a = m.forward({"strain": strain})
    b = Model(root, device, dtype).forward({"strain": strain})
    assert torch.equal(a["stress"], b["stress"])


def test_unsupported_dtype(artifact: Callable[[str], Path]) -> None:
    with pytest.raises(FatalError, match="float16"):
        Model(artifact("elasticity"), "cpu", torch.float16)


def test_other_file_as_path(tmp_path: Path) -> None:
    other = tmp_path / "model.pt2"
    other.write_bytes(b"")
    with pytest.raises(FatalError, match=r"model\.pt2"):
        Model(other)
