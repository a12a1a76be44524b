"""Type discovery: entry points of installed distributions and ``--load`` user modules."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import torch

import neml2
from neml2._registry import load_module, registry

PLUGIN = '''
from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import Scalar


@register_neml2_object("FakeDistDouble")
class FakeDistDouble(Model):
    """y = 2 x."""

    hit = HitSchema(input("from", Scalar, "x", attr="x_name"), output("to", Scalar, "y", attr="y_name"))

    def forward(self, x, v=None):
        y = x * 2.0
        if v is None:
            return y
        return y, self.apply_chain_rule(v, "to", {"from": lambda d: d * 2.0}, output=y)
'''

# NEML2 v3 extension style: imports from neml2.types / neml2.schema / neml2.models.model
V3_STYLE = '''
from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.types import Scalar


@register_neml2_object("UserAffine")
class UserAffine(Model):
    """y = a x + 1 (user model loaded with --load)."""

    hit = HitSchema(
        input("variable", Scalar, "Input variable"),
        output("result", Scalar, "Output variable", default="y"),
        parameter("a", Scalar, "Slope", default="3"),
    )

    def forward(self, x, v=None):
        a = self._get_param("a")
        y = a * x + 1.0
        if v is None:
            return y
        return y, self.apply_chain_rule(v, "result", {"variable": lambda d: a * d}, output=y)
'''


def _hit(tname: str, opts: str) -> str:
    return f"[Models]\n[m]\n type = {tname}\n {opts}\n[]\n[]\n"


def test_entry_point_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "fake_neml2_plugin"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PLUGIN)
    dist = tmp_path / "fake_neml2_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-neml2-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[neml2.objects]\nfake = fake_neml2_plugin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        m = neml2.load_string(_hit("FakeDistDouble", "from = a\n to = b")).get_model("m")
        (out,) = m.call_by_name({"a": torch.tensor([1.0, 2.0], dtype=torch.float64)}).values()
        assert out.data.tolist() == [2.0, 4.0]
        assert "FakeDistDouble" in registry.types("Models")
    finally:
        sys.modules.pop("fake_neml2_plugin", None)


def test_load_py_file_v3_style(tmp_path: Path) -> None:
    path = tmp_path / "user_model.py"
    path.write_text(textwrap.dedent(V3_STYLE))
    load_module(str(path))
    m = neml2.load_string(_hit("UserAffine", "variable = x\n a = 0.5")).get_model("m")
    assert list(m.input_spec) == ["x"] and list(m.output_spec) == ["y"]
    x = torch.tensor([2.0, 4.0], dtype=torch.float64)
    out, J = m.jacobian({"x": x})
    assert out["y"].data.tolist() == [2.0, 3.0]
    assert J["y"]["x"].data.tolist() == [0.5, 0.5]


def test_load_package_dir_and_dotted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "userpkg_neml2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PLUGIN.replace("FakeDistDouble", "UserPkgDouble"))
    load_module(str(pkg))
    assert "UserPkgDouble" in registry.types("Models")
    mod = tmp_path / "dotted_user_neml2.py"
    mod.write_text(PLUGIN.replace("FakeDistDouble", "DottedDouble"))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        load_module("dotted_user_neml2")
        assert "DottedDouble" in registry.types("Models")
    finally:
        sys.modules.pop("dotted_user_neml2", None)


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"--load nope\.py"):
        load_module("nope.py")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportError, match=r"no __init__\.py"):
        load_module(str(tmp_path / "empty"))
