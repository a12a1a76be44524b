"""neml2-inspect: text format and --json (``docs/guide/models.md``), sub-batch annotation,
failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from driver_scenario import make

from neml2.cli.inspect import main

TEXT = """\
Model: ComposedModel

Inputs (5):
  strain: type=SR2{sub}
  x~1: type=Scalar
  t: type=Scalar
  t~1: type=Scalar
  x_rate: type=Scalar

Outputs (2):
  stress: type=SR2
  x: type=Scalar

Parameters (2):
  elastic.E: dtype=torch.float64, device=cpu, shape=[]
  elastic.nu: dtype=torch.float64, device=cpu, shape=[]

Buffers (0):
"""


def _input(tmp_path: Path, settings: str = "") -> str:
    p = tmp_path / "model.i"
    p.write_text(make(nsteps=2).hit() + settings)
    return str(p)


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([_input(tmp_path), "model"]) == 0
    assert capsys.readouterr().out == TEXT.format(sub="")


def test_sub_batch_annotation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = "[Settings]\n  [example_batch_shape]\n    strain = '(2; 3)'\n  []\n[]\n"
    assert main([_input(tmp_path, settings), "model"]) == 0
    assert capsys.readouterr().out == TEXT.format(sub=", sub_batch=[3]")


def test_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([_input(tmp_path), "model", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    rec = json.loads(out)
    assert list(rec) == ["name", "inputs", "outputs", "parameters", "buffers", "retcode"]
    assert rec["name"] == "ComposedModel"
    assert rec["retcode"] == 0
    assert rec["inputs"][0] == {"name": "strain", "type": "SR2"}
    assert [v["name"] for v in rec["inputs"]] == ["strain", "x~1", "t", "t~1", "x_rate"]
    assert rec["outputs"] == [{"name": "stress", "type": "SR2"}, {"name": "x", "type": "Scalar"}]
    assert rec["parameters"][0] == {
        "name": "elastic.E",
        "dtype": "torch.float64",
        "device": "cpu",
        "shape": [],
    }
    assert rec["buffers"] == []


def test_overrides_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([_input(tmp_path), "euler", "Models/euler/variable:=y", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in rec["outputs"]] == ["y"]


@pytest.mark.parametrize("as_json", [False, True])
def test_unknown_model(tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    args = [_input(tmp_path), "nomodel", *(["--json"] if as_json else [])]
    assert main(args) == 1
    out = capsys.readouterr()
    assert out.err.startswith("Error: No [Models/nomodel] found in ")
    if as_json:
        rec = json.loads(out.out)
        assert rec["retcode"] == 1
        assert rec["error"].startswith("No [Models/nomodel] found in ")
    else:
        assert out.out == ""


def test_bad_type_names_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([_input(tmp_path), "euler", "Models/euler/type:=NoSuchModel"]) == 1
    err = capsys.readouterr().err
    assert "NoSuchModel" in err and "[Models/euler]" in err


def test_closed_pipe_ends_quietly() -> None:
    """``neml2-inspect ... --graph | head -1``: the reader leaves early; no traceback, status 141
    (128 + SIGPIPE) as for the other command-line tools. The reader here closes the pipe before
    the tool writes anything, so the first write fails whatever the pipe's buffer size."""
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[4] / "examples" / "viscoplasticity" / "chaboche.i"
    p = subprocess.Popen(
        [sys.executable, "-m", "neml2.cli.inspect", str(example), "model", "--graph"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=300) == 141
    assert err == b""
