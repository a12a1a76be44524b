"""``read_metadata``: the C++ loader's checks (through the binding) and their messages, each
naming the file and the fix."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
import torch

from neml2.aoti import FatalError, _aoti
from neml2.aoti.compile import FORMAT, SCHEMA_VERSION, read_metadata
from neml2.aoti.compile._metadata import OLDEST_SCHEMA_VERSION

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


def _meta(root: Path) -> str:
    """The metadata file as the messages name it (a regular expression)."""
    return re.escape(str(root / "metadata.json"))


def test_valid(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    assert read_metadata(root)["name"] == "model"
    assert read_metadata(root / "metadata.json", "cpu", torch.float64)["name"] == "model"
    assert read_metadata(root, dtype="float64")["leaves"][0]["path"] == "cpu/float64"
    assert read_metadata(root, device="cpu")["schema_version"] == SCHEMA_VERSION


def test_constants_are_the_runtime_s() -> None:
    """The writer's format and versions are the C++ loader's (one definition)."""
    assert (FORMAT, SCHEMA_VERSION, OLDEST_SCHEMA_VERSION) == (
        _aoti.FORMAT,
        _aoti.SCHEMA_VERSION,
        _aoti.OLDEST_SCHEMA_VERSION,
    )
    assert FORMAT == "neml2-aoti" and OLDEST_SCHEMA_VERSION <= SCHEMA_VERSION


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FatalError, match=r"artifact folder '.*nowhere' does not exist; run "
                                         r"neml2-compile to produce it"):  # fmt: skip
        read_metadata(tmp_path / "nowhere")


def test_missing_metadata(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    with pytest.raises(FatalError, match=r"'.*model' holds no metadata\.json; it is not a "
                                         r"neml2-compile artifact folder"):  # fmt: skip
        read_metadata(tmp_path / "model")


def test_other_file_as_path(tmp_path: Path) -> None:
    other = tmp_path / "model.pt2"
    other.write_bytes(b"")
    with pytest.raises(FatalError, match=r"model\.pt2' is neither an artifact folder nor its "
                                         r"metadata file"):  # fmt: skip
        read_metadata(other)


def test_invalid_json(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    (root / "metadata.json").write_text('{\n  "format": tru\n}')
    with pytest.raises(FatalError, match=_meta(root) + r":2:\d+: invalid JSON"):
        read_metadata(root)


def test_schema_version(tmp_path: Path) -> None:
    root = _artifact(tmp_path, schema_version=14)
    with pytest.raises(FatalError, match=_meta(root) + r" was written with schema version 14, "
                                         r"this neml2 reads 2 to 3: recompile with neml2-compile"):  # fmt: skip
        read_metadata(root)


def test_missing_schema_version(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    meta = json.loads((root / "metadata.json").read_text())
    del meta["schema_version"]
    (root / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(FatalError, match=_meta(root) + r": .*'schema_version' not found"):
        read_metadata(root)


def test_foreign_format(tmp_path: Path) -> None:
    root = _artifact(tmp_path, format=None, type="composed")
    with pytest.raises(FatalError, match=_meta(root) + r": not a neml2-aoti artifact \(format '', "
                                         r"expected 'neml2-aoti'\); regenerate it with "
                                         r"neml2-compile"):  # fmt: skip
        read_metadata(root)


def test_torch_version(tmp_path: Path) -> None:
    root = _artifact(tmp_path, torch_version="2.12.1+cpu")
    with pytest.raises(FatalError, match=_meta(root) + r": artifact built with torch 2\.12\.1\+cpu, "
                                         r"running torch .*: recompile with neml2-compile under "
                                         r"this torch"):  # fmt: skip
        read_metadata(root)


def test_cxx11_abi(tmp_path: Path) -> None:
    root = _artifact(tmp_path, cxx11_abi=not torch._C._GLIBCXX_USE_CXX11_ABI)
    with pytest.raises(FatalError, match=_meta(root) + r": artifact built with "
                                         r"_GLIBCXX_USE_CXX11_ABI=\d, this runtime uses \d; "
                                         r"recompile"):  # fmt: skip
        read_metadata(root)


def test_missing_leaf(tmp_path: Path) -> None:
    root = _artifact(tmp_path)
    with pytest.raises(FatalError, match=r"artifact '.*model' has no cpu/float32 leaf \(available: "
                                         r"cpu/float64\); recompile .*--dtype float32"):  # fmt: skip
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
    with pytest.raises(FatalError, match=_meta(root) + r": leaf cpu/float64 records no sha1 for "
                                         r"its graphs; recompile with neml2-compile"):  # fmt: skip
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
