"""Bad input to ``neml2.aoti.Model``: each error is a FatalError naming the thing at fault."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    """A path to the metadata JSON (as NEML2 v3 hosts pass it) names the folder holding it."""
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


def _leaf_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _edit_metadata(root: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    edit(data)
    meta.write_text(json.dumps(data, indent=1))


def _rehash(data: dict[str, Any], root: Path) -> None:
    """Record the current content hash of every graph file (a consistent-looking artifact)."""
    for leaf in data["leaves"]:
        for name in leaf["sha1"]:
            leaf["sha1"][name] = hashlib.sha1((root / leaf["path"] / name).read_bytes()).hexdigest()


def test_edited_base_shape_is_refused_at_load(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    """metadata.json edited after the compile (strain [6] -> [5]): before, the graph read 6
    numbers per row of a 5-wide tensor and returned values up to 1e27."""
    root = _copy(artifact("elasticity"), tmp_path)

    def shrink(data: dict[str, Any]) -> None:
        (strain,) = (v for v in data["inputs"] if v["name"] == "strain")
        strain["base_shape"], strain["var_size"] = [5], 5

    _edit_metadata(root, shrink)
    with pytest.raises(FatalError, match=r"graph 'model(_jvp)?\.pt2' input 0 is \w+ \w+ \[B, 6\], "
                                         r"metadata\.json implies \w+ \w+ \[B, 5\] "
                                         r"\(variable 'strain'\).*recompile"):  # fmt: skip
        Model(root, device, dtype)


def test_edited_unknown_count_is_refused_at_load(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    """An implicit segment's flat unknown vector: its width in metadata.json and in the graphs."""
    root = _copy(artifact("scalar_implicit"), tmp_path)

    def widen(data: dict[str, Any]) -> None:
        (seg,) = (s for s in data["segments"] if s["kind"] == "implicit")
        seg["n_unknowns"] += 1

    _edit_metadata(root, widen)
    with pytest.raises(FatalError, match=r"input 0 is \w+ \w+ \[B, 1\], metadata\.json implies "
                                         r"\w+ \w+ \[B, 2\] \(the flat unknowns u\)"):  # fmt: skip
        Model(root, device, dtype)


def test_changed_graph_file_is_refused(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)
    graph = root / device.type / _leaf_name(dtype) / "model.pt2"
    with graph.open("ab") as f:
        f.write(b"\0")
    with pytest.raises(FatalError, match=r"model\.pt2' has sha1 [0-9a-f]{40}, metadata\.json "
                                         r"records [0-9a-f]{40}: the file was changed"):  # fmt: skip
        Model(root, device, dtype)


def test_graphs_of_the_other_dtype_are_refused(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    """The other dtype's graphs copied into this leaf: before, a float32 graph in the float64 leaf
    read the float64 strain as float32 numbers and returned garbage. The content hash refuses the
    files; with the hashes rewritten to match, the graphs' own signatures still do."""
    other = _leaf_name(torch.float32 if dtype == torch.float64 else torch.float64)
    root = _copy(artifact("elasticity"), tmp_path)
    theirs = root / device.type / other
    if not theirs.is_dir():
        pytest.skip(f"the test artifact has no {device.type}/{other} leaf")
    ours = root / device.type / _leaf_name(dtype)
    for g in theirs.glob("*.pt2"):
        shutil.copyfile(g, ours / g.name)
    with pytest.raises(
        FatalError, match=r"has sha1 .*: the file was changed or comes from another"
    ):
        Model(root, device, dtype)
    _edit_metadata(root, lambda data: _rehash(data, root))
    with pytest.raises(FatalError, match=rf"input 0 is {other} \w+ \[B, 6\], metadata\.json "
                                         rf"implies {_leaf_name(dtype)} \w+ \[B, 6\]"):  # fmt: skip
        Model(root, device, dtype)


def test_leaf_without_content_hashes_is_refused(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    root = _copy(artifact("elasticity"), tmp_path)

    def drop(data: dict[str, Any]) -> None:
        for leaf in data["leaves"]:
            del leaf["sha1"]

    _edit_metadata(root, drop)
    with pytest.raises(FatalError, match=r"metadata\.json: leaf \w+/\w+ records no sha1 for graph "
                                         r"'model\.pt2'"):  # fmt: skip
        Model(root, device, dtype)


def _host_cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def test_leaf_for_a_cpu_with_more_instructions_is_refused(
    artifact: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    """An artifact compiled (-march=native) on a CPU with an extension this one lacks, e.g.
    AVX-512 code copied to an AVX2 machine: refused at load instead of a SIGILL in a graph."""
    from neml2.aoti.compile._signature import ISA_FLAGS

    host = _host_cpu_flags()
    lacking = sorted(ISA_FLAGS - host)
    if not host or not lacking:
        pytest.skip("no /proc/cpuinfo, or this CPU has every recorded extension")
    root = _copy(artifact("elasticity"), tmp_path)

    def claim(data: dict[str, Any]) -> None:
        for leaf in data["leaves"]:
            leaf["cpu_features"] = sorted(host & ISA_FLAGS) + lacking[:1]

    _edit_metadata(root, claim)
    with pytest.raises(FatalError, match=rf"was compiled for a CPU with instructions this CPU lacks "
                                         rf"\({lacking[0]}\).*illegal instruction"):  # fmt: skip
        Model(root, device, dtype)


def test_leaf_compiled_here_records_this_cpu(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    from neml2.aoti.compile._signature import cpu_features

    meta = json.loads((artifact("elasticity") / "metadata.json").read_text())
    (leaf,) = (lf for lf in meta["leaves"] if lf["dtype"] == _leaf_name(dtype))
    assert leaf["cpu_features"] == cpu_features()
    assert set(leaf["cpu_features"]) <= _host_cpu_flags()
