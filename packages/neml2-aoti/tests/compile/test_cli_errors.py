"""Bad ``neml2-compile`` requests: exit status 1 and one ``Error:`` line naming the culprit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from neml2.aoti.compile.cli import main


def _run(capsys: Any, *argv: str) -> str:
    code = main(list(argv))
    err: str = capsys.readouterr().err.strip()
    assert code == 1
    assert len(err.splitlines()) == 1, err
    assert err.startswith("Error: ") and "Traceback" not in err
    return err


@pytest.fixture
def elastic(scenario_file: Any) -> str:
    return str(scenario_file("elasticity"))


@pytest.fixture
def implicit(scenario_file: Any) -> str:
    return str(scenario_file("scalar_implicit"))


def test_unknown_parameter_lists_available(capsys: Any, elastic: str, tmp_path: Path) -> None:
    err = _run(capsys, elastic, "--model", "model", "-p", "model.G", "--plan",
               "--output-dir", str(tmp_path))  # fmt: skip
    assert "-p model.G" in err and "model.E" in err and "model.nu" in err


def test_unknown_derivative_variable_lists_variables(
    capsys: Any, elastic: str, tmp_path: Path
) -> None:
    err = _run(capsys, elastic, "--model", "model", "-d", "stress:foo", "--plan",
               "--output-dir", str(tmp_path))  # fmt: skip
    assert "'foo'" in err and "strain" in err
    err = _run(capsys, elastic, "--model", "model", "-d", "bar:strain", "--plan",
               "--output-dir", str(tmp_path))  # fmt: skip
    assert "'bar'" in err and "stress" in err
    err = _run(capsys, elastic, "--model", "model", "-d", "stress", "--plan")
    assert "OUT:IN" in err


def test_model_and_driver(capsys: Any, elastic: str) -> None:
    for argv in ([elastic, "--model", "model", "--driver", "d"], [elastic]):
        err = _run(capsys, *argv)
        assert "exactly one of --model NAME and --driver NAME" in err
    err = _run(capsys, "--model", "model")
    assert "INPUT.i" in err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--dtype", "float16"], "--dtype float16"),
        (["-j", "0"], "-j 0"),
        (["--jobs", "0"], "-j 0"),  # v3's long spelling
        (["-i"], "neml2-inspect"),  # v3's wizard: refused, saying what to use
        (["--interactive"], "--model NAME or --driver NAME"),
        (["--rename-input", "foo:bar"], "unknown input 'foo'"),
        (["--rename-output", "stress"], "OLD:NEW"),
        (["-p", "model.E", "-p", "model.nu", "--rename-parameter", "model.E:model.nu"],
         "not unique"),
        (["--example-batch-shape", "(3,)", "--example-batch-shape", "strain=(2;3)"], "not both"),
        (["--example-batch-shape", "(1,)"], ">= 2"),
        (["--example-batch-shape", "(2, 3)"], "one dynamic batch axis"),
        (["--example-batch-shape", "[2]"], "--example-batch-shape"),
        (["--frobnicate"], "--frobnicate"),
        (["--device", "cuda:7"], "--device"),
        (["Models/model/nope:=1"], "nope"),
        (["--load", "/nonexistent/ext.py"], "--load"),
    ],
)  # fmt: skip
def test_bad_flags(capsys: Any, elastic: str, tmp_path: Path, args: list[str], needle: str) -> None:
    if args == ["--device", "cuda:7"]:
        import torch

        if torch.cuda.is_available():
            pytest.skip("a CUDA device exists")
    err = _run(capsys, elastic, "--model", "model", "--plan", "--output-dir", str(tmp_path), *args)
    assert needle in err


def test_missing_input_file(capsys: Any, tmp_path: Path) -> None:
    err = _run(capsys, str(tmp_path / "none.i"), "--model", "model")
    assert "none.i" in err


def test_unknown_model_block(capsys: Any, elastic: str, tmp_path: Path) -> None:
    err = _run(capsys, elastic, "--model", "nosuch", "--plan", "--output-dir", str(tmp_path))
    assert "nosuch" in err


def test_implicit_unknown_parameter_lists_eager_names(
    capsys: Any, implicit: str, tmp_path: Path
) -> None:
    err = _run(capsys, implicit, "--model", "model", "-p", "implicit_rate.x2.nope", "--plan",
               "--output-dir", str(tmp_path))  # fmt: skip
    assert "implicit_rate.rate.scaling" in err


def test_output_sub_batch_that_cannot_be_evaluated_names_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forward model whose undeclared outputs' sub-batch cannot be read off an evaluation at
    example inputs is refused with the outputs and the declaration to write, not a traceback."""
    from neml2.aoti.compile import CompileError
    from neml2.aoti.compile._pipeline import compile_model
    from neml2.models.model import Model

    src = tmp_path / "slip.i"
    src.write_text(
        "[Models]\n  [model]\n    type = ScalarLinearCombination\n"
        "    from = 'a b'\n    to = 'c'\n  []\n[]\n"
    )

    def fail(self: Model, state: object) -> object:
        raise RuntimeError("no example value here")

    monkeypatch.setattr(Model, "value", fail)
    with pytest.raises(
        CompileError,
        match=r"output\(s\) \['c'\] .*RuntimeError: no example value.*"
        r"example_batch_shape",
    ):
        compile_model(
            src,
            model="model",
            output_dir=tmp_path,
            stub=False,
            example_batch_shape=["a='(2;3)'"],
            plan_only=True,
        )


PYTHON_TENSOR = """[Tensors]
  [E]
    type = Python
    expr = 'Scalar(torch.tensor(1e5, dtype=torch.float64))'
  []
[]
[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = 'E 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
"""


def test_no_python_tensors(capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-python-tensors refuses the input's Python expression before anything is exported
    (and leaves the process environment as it was)."""
    monkeypatch.delenv("NEML2_ALLOW_PYTHON_TENSORS", raising=False)
    path = tmp_path / "m.i"
    path.write_text(PYTHON_TENSOR)
    err = _run(capsys, str(path), "--model", "model", "--plan", "--no-python-tensors",
               "--output-dir", str(tmp_path / "out"))  # fmt: skip
    assert "[Tensors/E] (type='Python'): Python tensors are switched off" in err
    assert "NEML2_ALLOW_PYTHON_TENSORS" not in os.environ
    assert not (tmp_path / "out" / "model" / "metadata.json").exists()


def test_pair_without_a_block_layout_names_it(tmp_path: Path) -> None:
    """A sub-batched input of a model that sums over the dynamic batch: its Jacobian block has no
    per-entry layout, so ``-d`` of it is refused naming the model, the pair and the way out."""
    from neml2.aoti.compile import CompileError
    from neml2.aoti.compile._pipeline import compile_model

    src = tmp_path / "sum.i"
    src.write_text(
        "[Models]\n  [model]\n    type = SR2DynamicSum\n"
        "    from = 'x'\n    to = 'y'\n    dim = 0\n  []\n[]\n"
    )
    with pytest.raises(
        CompileError, match=r"sum\.i: -d: jacobian\(\): SR2DynamicSum 'model'.*J\['y'\]\['x'\]"
    ):
        compile_model(
            src,
            model="model",
            output_dir=tmp_path,
            stub=False,
            derivatives=[":"],
            example_batch_shape=["x='(2;3)'"],
            plan_only=True,
        )


def test_ramped_incremental_variable_is_refused(capsys: Any, implicit: str, tmp_path: Path) -> None:
    """With substepping, an incremental variable whose old value the residual does not read would
    be held (not ramped) by the runtime: refused, naming the block, option and variable."""
    text = Path(implicit).read_text()
    text = text.replace("from = 'x x2 x3'", "from = 'x x2 x3 k'").replace(
        "    solver = 'newton'\n",
        "    solver = 'newton'\n    max_substepping_level = 2\n    incremental_variables = 'k'\n",
    )
    path = tmp_path / "ramped.i"
    path.write_text(text)
    err = _run(capsys, str(path), "--model", "model", "--plan", "--output-dir", str(tmp_path))
    assert "[Models/model] option 'incremental_variables'" in err and "['k']" in err
    # without substepping nothing is ramped: the same file plans
    assert main([str(path), "--model", "model", "--plan", "--output-dir", str(tmp_path),
                 "Models/model/max_substepping_level:=0"]) == 0  # fmt: skip
