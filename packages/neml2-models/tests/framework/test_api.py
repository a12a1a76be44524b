"""Top-level API: cheap import, __all__, load_input/load_string/load_model arguments."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import neml2

MODEL = """
[Models]
  [m]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 2
  []
[]
"""


def test_import_is_cheap() -> None:
    code = "import sys, neml2; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_all_names_resolve() -> None:
    """Every public name resolves; one another distribution provides (``export_model_for_aoti``,
    neml2-aoti[compile]) says what to install when that distribution is absent."""
    has_aoti = importlib.util.find_spec("neml2.aoti") is not None
    for name in neml2.__all__:
        if neml2._LAZY.get(name, "").startswith("neml2.aoti") and not has_aoti:
            with pytest.raises(AttributeError, match=r"install neml2-aoti\[compile\]"):
                getattr(neml2, name)
            continue
        assert getattr(neml2, name) is not None, name
    assert neml2.Model.__module__ == "neml2.models.model"
    assert neml2.load_model is neml2.factory.load_model


def test_load_input_overrides_and_dtype(tmp_path: Path) -> None:
    path = tmp_path / "m.i"
    path.write_text(MODEL)
    f = neml2.load_input(
        path,
        post="[Models]\n[m]\n offset := 1\n[]\n[]\n",
        additional_args=["Models/m/weights:=3"],
        dtype="float32",
    )
    m = f.get_model("m")
    assert f.get_model("m") is m
    (b,) = m.call_by_name({"a": torch.tensor([1.0, 2.0])}).values()
    assert b.data.dtype == torch.float32 and b.data.tolist() == [4.0, 7.0]
    m64 = neml2.load_model(path, "m", dtype=torch.float64, device="cpu")
    assert next(m64.parameters()).dtype == torch.float64


def test_load_string_pre() -> None:
    f = neml2.load_string(MODEL, pre="w = 5\n", additional_args="Models/m/weights:=${w}")
    (b,) = f.get_model("m").call_by_name({"a": torch.tensor([1.0], dtype=torch.float64)}).values()
    assert b.data.tolist() == [5.0]


def test_load_nonlinear_system(tmp_path: Path) -> None:
    path = tmp_path / "sys.i"
    path.write_text(
        """
[Models]
  [rate]
    type = ScalarLinearCombination
    from = 'x'
    to = 'x_rate'
    weights = -2
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'x'
  []
  [residual]
    type = ComposedModel
    models = 'rate integrate'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'x'
  []
[]
"""
    )
    system = neml2.load_nonlinear_system(path, "eq")
    assert isinstance(system, neml2.ModelNonlinearSystem)


def test_v3_call_forms(tmp_path: Path) -> None:
    """NEML2 v3 scripts: ``load_model(path, model_name=...)``; ``pre``/``post`` as sequences of
    HIT snippets (joined by newlines), the same as one string."""
    path = tmp_path / "m.i"
    path.write_text(MODEL.replace("weights = 2", "weights = '${w}'"))
    f = neml2.load_input(
        path, pre=["w = 5", "unused = 1"], post=("[Models]", "[m]", "offset := 1", "[]", "[]")
    )
    (b,) = f.get_model("m").call_by_name({"a": torch.tensor([2.0], dtype=torch.float64)}).values()
    assert b.data.tolist() == [11.0]
    g = neml2.load_string(path.read_text(), pre=("w = 3",))
    (b,) = g.get_model("m").call_by_name({"a": torch.tensor([2.0], dtype=torch.float64)}).values()
    assert b.data.tolist() == [6.0]
    path.write_text(MODEL)
    m = neml2.load_model(path, model_name="m", dtype="float64")
    (b,) = m.call_by_name({"a": torch.tensor([1.5], dtype=torch.float64)}).values()
    assert b.data.tolist() == [3.0]


def test_v3_top_level_names() -> None:
    """``neml2.SR2(...)`` and the other names v3 scripts reach through the top level."""
    import neml2.tensors as tensors
    from neml2._registry import registry

    for name in ("Scalar", "SR2", "Vec", "R2", "SSR4", "WR2", "MRP", "MillerIndex", "Tensor"):
        assert getattr(neml2, name) is getattr(tensors, name), name
        assert name in dir(neml2)
    assert neml2.TensorWrapper is tensors.TensorWrapper
    csv = {name: cls for sec, name, cls in registry.items() if name.startswith("CSV")}
    for name in ("CSVScalar", "CSVVec", "CSVSR2", "CSVWR2"):
        assert getattr(neml2, name) is csv[name], name
    assert neml2.SR2.fill(1.0, 2.0, 3.0).data.tolist() == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0]
    subs = ["settings", "types", "factory", "schema", "drivers", "es", "solvers"]
    if importlib.util.find_spec("pyzag") is not None:  # an optional dependency (see below)
        subs.append("pyzag")
    for sub in subs:
        assert getattr(neml2, sub).__name__ == f"neml2.{sub}"


def test_pyzag_adapter_without_pyzag_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the optional pyzag, ``neml2.pyzag`` says which extra installs it."""
    for name in [m for m in sys.modules if m == "neml2.pyzag" or m.startswith("neml2.pyzag.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(neml2, "pyzag", raising=False)
    monkeypatch.setitem(sys.modules, "pyzag", None)  # import pyzag -> ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'neml2-models\[pyzag\]'"):
        importlib.import_module("neml2.pyzag")


def test_hash_file_names_the_built_commit() -> None:
    """``neml2.hash_file`` (v3's name) is the file holding the git commit of the build. Installed
    from this source tree (editable), it is HEAD or an ancestor of it (the commit it was installed
    at); elsewhere 40 hex digits, or ``unknown`` for a build without git."""
    path = neml2.hash_file
    assert isinstance(path, Path) and path.is_file()
    commit = path.read_text().strip()
    source = Path(neml2.__file__).resolve().parents[2]
    if not (source / "hatch_build.py").is_file():
        assert commit == "unknown" or (len(commit) == 40 and int(commit, 16) >= 0), commit
        return
    assert len(commit) == 40 and int(commit, 16) >= 0, commit
    ancestor = subprocess.run(
        ["git", "-C", str(source), "merge-base", "--is-ancestor", commit, "HEAD"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert ancestor.returncode == 0, f"{commit} is not in the history of {source}"
