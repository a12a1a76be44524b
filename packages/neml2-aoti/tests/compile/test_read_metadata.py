"""``read_metadata``: the loader checks and their messages (the same as the C++ loader's)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import torch

from neml2.aoti import FatalError
from neml2.aoti.compile import FORMAT, SCHEMA_VERSION, read_metadata

GRAPH_BYTES = b"stand-in for a compiled graph package"


def _artifact(tmp_path: Path, **changes: Any) -> Path:
    root = tmp_path / "model"
    (root / "cpu" / "float64").mkdir(parents=True)
    (root / "cpu" / "float64" / "model.pt2").write_bytes(GRAPH_BYTES)
    sha1 = {"model.pt2": hashlib.sha1(GRAPH_BYTES).hexdigest()}  # independent of file_sha1
    meta = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "name": "model",
        "torch_version": torch.__version__,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "leaves": [{"device": "cpu", "dtype": "float64", "path": "cpu/float64", "sha1": sha1}],
    }
    meta.update(changes)
    (root / "metadata.json").write_text(json.dumps(meta))
    return root


def test_valid(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    assert read_metadata(root)["name"] == "model"
    assert read_metadata(root / "metadata.json", "cpu", torch.float64)["name"] == "model"


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FatalError, match=r"'.*nowhere' does not exist: run neml2-compile again"):
        read_metadata(tmp_path / "nowhere")


def test_missing_metadata(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    with pytest.raises(FatalError, match=r"has no metadata\.json"):
        read_metadata(tmp_path / "model")


def test_schema_version(tmp_path: Path) -> None:
    root = _artifact(tmp_path, schema_version=14)
    with pytest.raises(FatalError, match=r"schema version 14, this neml2 reads 2 to 3: recompile"):
        read_metadata(root)


def test_foreign_format(tmp_path: Path) -> None:
    root = _artifact(tmp_path, format=None, type="composed")
    with pytest.raises(FatalError, match="format None is not 'neml2-aoti'"):
        read_metadata(root)


def test_torch_version(tmp_path: Path) -> None:
    root = _artifact(tmp_path, torch_version="2.12.1+cpu")
    with pytest.raises(FatalError, match=r"built with torch 2\.12\.1, running torch .*recompile"):
        read_metadata(root)


def test_cxx11_abi(tmp_path: Path) -> None:
    root = _artifact(tmp_path, cxx11_abi=not torch._C._GLIBCXX_USE_CXX11_ABI)
    with pytest.raises(FatalError, match="_GLIBCXX_USE_CXX11_ABI"):
        read_metadata(root)


def test_missing_leaf(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    with pytest.raises(FatalError, match=r"no cpu/float32 leaf \(available: cpu/float64\).*"
                                         r"--dtype float32"):  # fmt: skip
        read_metadata(root, "cpu", "float32")


def test_changed_graph_file(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    read_metadata(root, "cpu", torch.float64)
    (root / "cpu" / "float64" / "model.pt2").write_bytes(GRAPH_BYTES + b"!")
    with pytest.raises(FatalError, match=r"model\.pt2' has sha1 [0-9a-f]{40}, metadata\.json "
                                         r"records [0-9a-f]{40}: the file was changed"):  # fmt: skip
        read_metadata(root, "cpu", torch.float64)


def test_missing_graph_file(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    (root / "cpu" / "float64" / "model.pt2").unlink()
    with pytest.raises(FatalError, match=r"model\.pt2' listed in metadata\.json is missing"):
        read_metadata(root, "cpu", torch.float64)


def test_leaf_without_hashes(tmp_path: Path) -> None:
    root = _artifact(
        tmp_path, leaves=[{"device": "cpu", "dtype": "float64", "path": "cpu/float64"}]
    )
    assert read_metadata(root)["name"] == "model"  # the hashes are checked per leaf
    with pytest.raises(FatalError, match=r"records no content hash \(sha1\)"):
        read_metadata(root, "cpu", torch.float64)


def test_cpu_features_from_cpuinfo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only instruction-set flags are recorded, from the first processor's line."""
    import platform

    from torch._inductor import config

    from neml2.aoti.compile._signature import cpu_features

    text = (
        "processor\t: 0\nflags\t\t: fpu hypervisor avx2 fma avx512f constant_tsc\n"
        "processor\t: 1\nflags\t\t: fpu avx2 amx_tile\n"
    )
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    with config.patch({"cpp.march": None}):
        assert cpu_features(text) == ["avx2", "avx512f", "fma"]
        assert cpu_features("processor\t: 0\n") == []
    with config.patch({"cpp.march": "x86-64-v3"}):
        assert cpu_features(text) == []  # an explicit target: the code needs what it names
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    with config.patch({"cpp.march": None}):
        assert cpu_features(text) == []
