"""``neml2.export_model_for_aoti``: NEML2 v3's call form of the compiler.

Compiles into the artifact folder itself (no stub), with ``pre`` HIT snippets, HIT overrides
(``additional_args``) and renames keyed ``inputs``/``outputs``/``parameters``; the artifact then
runs through ``neml2.aoti.Model`` with the renamed variables.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import Model

MODEL = """
[Models]
  [m]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = '${w}'
  []
[]
"""


def test_compiles_into_the_folder_with_pre_overrides_and_renames(tmp_path: Path) -> None:
    src = tmp_path / "m.i"
    src.write_text(MODEL)
    art = tmp_path / "artifact"
    lines: list[str] = []
    meta = neml2.export_model_for_aoti(
        src, "m", art, pre=["w = 5"], additional_args=("Models/m/offset:=1",),
        renames={"inputs": {"a": "x"}, "outputs": {"b": "y"}}, progress_cb=lines.append,
    )  # fmt: skip
    assert meta == json.loads((art / "metadata.json").read_text())
    assert sorted(p.name for p in (art / "cpu" / "float64").glob("*.pt2")) == ["m.pt2"]
    assert not list(tmp_path.glob("*_aoti.i")) and lines
    m = Model(art)
    assert list(m.input_names) == ["x"] and list(m.output_names) == ["y"]
    out = m.forward({"x": torch.tensor([2.0, -1.0], dtype=torch.float64)})
    assert out["y"].tolist() == [5 * 2.0 + 1, 5 * -1.0 + 1]


def test_unknown_rename_namespace_is_a_value_error(tmp_path: Path) -> None:
    src = tmp_path / "m.i"
    src.write_text(MODEL)
    with pytest.raises(ValueError, match=r"Unknown rename namespace\(s\) \['input'\]"):
        neml2.export_model_for_aoti(src, "m", tmp_path / "a", renames={"input": {"a": "x"}})
    assert not (tmp_path / "a").exists()


def test_missing_model_names_it(tmp_path: Path) -> None:
    src = tmp_path / "m.i"
    src.write_text(MODEL.replace("'${w}'", "2"))
    with pytest.raises(ValueError, match="nope"):
        neml2.export_model_for_aoti(src, "nope", tmp_path / "a")
