"""Every ``neml2-compile`` flag, checked on ``--plan`` output (metadata + stub, no lowering)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from neml2.aoti.compile.cli import main
from neml2.hit import parse_file


def _plan(capsys: Any, out: Path, *argv: str) -> tuple[dict[str, Any], list[str]]:
    assert main([*argv, "--plan", "--output-dir", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    return json.loads((out / "model" / "metadata.json").read_text()), lines


def test_parameter_and_derivatives(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    f = str(scenario_file("elasticity"))
    meta, lines = _plan(capsys, tmp_path, f, "--model", "model", "-p", "model.E",
                        "-d", "stress:strain", "-d", "stress:model.E")  # fmt: skip
    assert meta["format"] == "neml2-aoti" and meta["schema_version"] == 3
    (p,) = meta["parameters"]
    assert (p["name"], p["values"], p["shape"], p["origin"]) == (
        "model.E",
        [1000.0],
        [],
        "parameter",
    )
    assert meta["derivatives"] == [["stress", "strain"]]
    assert meta["parameter_derivatives"] == [["stress", "model.E"]]
    (seg,) = meta["segments"]
    assert seg["param_inputs"] == ["model.E"]
    assert seg["graphs"] == {"value": "model.pt2", "jvp": "model_jvp.pt2", "pjac": "model_pjac.pt2"}
    assert lines == [f"[{k + 1}/3] {tmp_path / 'model' / 'cpu' / 'float64' / n}"
                     for k, n in enumerate(["model.pt2", "model_jvp.pt2", "model_pjac.pt2"])]  # fmt: skip


def test_baked_model_has_one_graph(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    meta, lines = _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model")
    assert meta["parameters"] == [] and meta["derivatives"] == []
    assert meta["segments"][0]["graphs"] == {"value": "model.pt2"} and len(lines) == 1


def test_empty_sides_mean_all(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    meta, _ = _plan(capsys, tmp_path, str(scenario_file("scalar_implicit")), "--model", "model",
                    "-d", ":")  # fmt: skip
    assert meta["derivatives"] == [["x", i] for i in ("x", "x~1", "t", "t~1")]
    (seg,) = meta["segments"]
    zero = {p["in"]: p["zero"] for p in seg["jacobian_pairs"]}
    assert zero == {"x": True, "x~1": False, "t": False, "t~1": False}
    assert [c["name"] for c in seg["given_columns"]] == ["x~1", "t", "t~1"]
    # also without line search: the iterate predicted converged is checked without its Jacobian
    assert seg["graphs"]["residual"] == "model_residual.pt2"


def test_quiet_and_no_stub(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    _, lines = _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model",
                     "-q", "--no-stub")  # fmt: skip
    assert lines == []
    assert not (tmp_path / "model_aoti.i").exists()


def test_stub_content(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    _plan(capsys, tmp_path / "out", str(scenario_file("chaboche")), "--model", "model")
    text = (tmp_path / "out" / "model_aoti.i").read_text()
    assert "artifact_path = 'model'" in text
    root = parse_file(tmp_path / "out" / "model_aoti.i")
    names = [s.name for s in root.sections()]
    assert names == ["Models"]  # EquationSystems and Solvers dropped, one [Models]
    (block,) = root.find_section("Models").sections()  # type: ignore[union-attr]
    assert block.name == "model" and block.get_str("type") == "AOTIModel"


def test_driver_keeps_drivers(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    src = scenario_file("elasticity").read_text()
    f = tmp_path / "with_driver.i"
    f.write_text(
        src
        + """
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, 3, dtype=torch.float64).unsqueeze(-1))'
  []
  [strains]
    type = Python
    expr = 'SR2(torch.linspace(0, 0.01, 18, dtype=torch.float64).reshape(3, 1, 6))'
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
[Settings]
  aoti_device = 'cpu'
[]
"""
    )
    meta, _ = _plan(capsys, tmp_path / "out", str(f), "--driver", "driver")
    assert meta["name"] == "model"
    root = parse_file(tmp_path / "out" / "model_aoti.i")
    assert [s.name for s in root.sections()] == ["Models", "Tensors", "Drivers", "Settings"]
    assert not root.find_section("Settings").has_field("aoti_device")  # type: ignore[union-attr]
    err = main([str(f), "--driver", "driver", "--plan", "--output-dir", str(tmp_path / "o2"),
                "--rename-input", "strain:eps"])  # fmt: skip
    assert err == 1


def test_renames(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    meta, _ = _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model",
                    "-p", "model.E", "-d", "stress:strain", "-d", "stress:model.E",
                    "--rename-input", "strain:eps", "--rename-output", "stress:sig",
                    "--rename-parameter", "model.E:E")  # fmt: skip
    assert [v["name"] for v in meta["inputs"]] == ["eps"]
    assert [v["name"] for v in meta["outputs"]] == ["sig"]
    assert [p["name"] for p in meta["parameters"]] == ["E"]
    assert meta["derivatives"] == [["sig", "eps"]]
    assert meta["parameter_derivatives"] == [["sig", "E"]]
    seg = meta["segments"][0]
    assert (seg["inputs"], seg["outputs"], seg["param_inputs"]) == (["eps"], ["sig"], ["E"])


def test_example_batch_and_dynamic(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    f = str(scenario_file("elasticity"))
    meta, _ = _plan(capsys, tmp_path, f, "--model", "model", "--example-batch-shape", "(3,)")
    assert (meta["example_batch"], meta["dynamic_batch"]) == (3, True)
    meta, _ = _plan(capsys, tmp_path, f, "--model", "model", "--no-dynamic-batch",
                    "--example-batch-shape", "strain='(5;)'")  # fmt: skip
    assert (meta["example_batch"], meta["dynamic_batch"]) == (5, False)
    meta, _ = _plan(capsys, tmp_path, f, "--model", "model", "--example-batch-shape",
                    "strain=(4; 2)")  # fmt: skip
    assert meta["inputs"][0]["sub_batch_shape"] == [2] and meta["example_batch"] == 4


def test_overrides_device_and_dtype(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    meta, lines = _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model",
                        "-p", "model.E", "--device", "cpu", "cpu", "--dtype", "float32",
                        "Models/model/coefficients:='2e3 0.3'")  # fmt: skip
    assert meta["parameters"][0]["values"] == [2000.0]
    assert lines == [f"[1/1] {tmp_path / 'model' / 'cpu' / 'float32' / 'model.pt2'}"]


def test_load_imports_extension(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    ext = tmp_path / "h17_ext_mod.py"
    ext.write_text("LOADED = True\n")
    _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model",
          "--load", str(ext))  # fmt: skip
    assert any(getattr(m, "LOADED", False) for n, m in sys.modules.items() if "h17_ext_mod" in n)


def test_python_api_matches_cli(scenario_file: Any, tmp_path: Path) -> None:
    from neml2.aoti.compile import CompileError, compile_model

    meta = compile_model(scenario_file("elasticity"), model="model", output_dir=tmp_path,
                         promote=["model.E"], plan_only=True)  # fmt: skip
    assert meta["segments"][0]["param_inputs"] == ["model.E"]
    with pytest.raises(CompileError, match=r"model\.nu"):
        compile_model(scenario_file("elasticity"), model="model", output_dir=tmp_path,
                      promote=["E"], plan_only=True)  # fmt: skip


SETTINGS_UNIFORM = "[Settings]\n  example_batch_shape = '(3,)'\n[]\n"
SETTINGS_PER_VARIABLE = "[Settings]\n  [example_batch_shape]\n    strain = '(3,)'\n  []\n[]\n"
SETTINGS_DISAGREE = (
    "[Settings]\n  [example_batch_shape]\n    strain = '(3,)'\n    T = '(4,)'\n  []\n[]\n"
)


@pytest.mark.parametrize("settings", [SETTINGS_UNIFORM, SETTINGS_PER_VARIABLE])
def test_settings_example_batch_shape(
    capsys: Any, scenario_file: Any, tmp_path: Path, settings: str
) -> None:
    """``[Settings]/example_batch_shape`` (uniform and per-variable forms, as the eager-cpp
    README documents) sets the example batch of the traced graphs like --example-batch-shape."""
    f = tmp_path / "model.i"
    f.write_text(Path(scenario_file("elasticity")).read_text() + "\n" + settings)
    meta, _ = _plan(capsys, tmp_path / "out", str(f), "--model", "model")
    assert meta["segments"][0]["graphs"] == {"value": "model.pt2"}


def test_settings_example_batch_shapes_that_differ(
    capsys: Any, scenario_file: Any, tmp_path: Path
) -> None:
    f = tmp_path / "model.i"
    f.write_text(Path(scenario_file("elasticity")).read_text() + "\n" + SETTINGS_DISAGREE)
    assert main([str(f), "--model", "model", "--plan", "--output-dir", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("Error: ") and "differ" in err and "Traceback" not in err


def test_jobs_long_spelling(capsys: Any, scenario_file: Any, tmp_path: Path) -> None:
    """``--jobs N`` (NEML2 v3's spelling of -j)."""
    meta, _ = _plan(capsys, tmp_path, str(scenario_file("elasticity")), "--model", "model",
                    "--jobs", "2")  # fmt: skip
    assert meta["segments"][0]["graphs"] == {"value": "model.pt2"}


def test_parameters_take_v3_names_and_aliases(
    capsys: Any, scenario_file: Any, tmp_path: Path
) -> None:
    """``-p``/``-d`` accept an option-key alias; the artifact records v3's names."""
    f = str(scenario_file("chaboche"))
    meta, _ = _plan(capsys, tmp_path, f, "--model", "model",
                    "-p", "implicit_rate.flow_rate.reference_stress",
                    "-p", "implicit_rate.yield_surface.sy",
                    "-d", "stress:implicit_rate.flow_rate.reference_stress")  # fmt: skip
    assert [p["name"] for p in meta["parameters"]] == [
        "implicit_rate.flow_rate.eta", "implicit_rate.normality.flow.yield_surface.sy"
    ]  # fmt: skip
    assert meta["parameter_derivatives"] == [["stress", "implicit_rate.flow_rate.eta"]]
