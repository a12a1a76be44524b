"""``read_metadata``: the loader checks and their messages (the same as the C++ loader's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from neml2.aoti import FatalError
from neml2.aoti.compile import FORMAT, SCHEMA_VERSION, read_metadata


def _artifact(tmp_path: Path, **changes: Any) -> Path:
    root = tmp_path / "model"
    (root / "cpu" / "float64").mkdir(parents=True)
    meta = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "name": "model",
        "torch_version": torch.__version__,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "leaves": [{"device": "cpu", "dtype": "float64", "path": "cpu/float64"}],
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
    with pytest.raises(FatalError, match=r"schema version 14, this neml2 reads 1: recompile"):
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
