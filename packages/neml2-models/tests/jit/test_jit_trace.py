"""Opt-in TorchScript tracing of ``Model.value``: NEML2 v3's Python tracing
tutorial, verbatim.

With tracing on, ``torch.jit.last_executed_optimized_graph()`` after ``model.value(...)`` shows
the traced graph, ``t - t~1`` computed once; with tracing off (the default) nothing is traced.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from three_rates import THREE_RATES_GRAPH_INPUTS, THREE_RATES_INPUT, check_three_rates_torchscript

import neml2
from neml2.jit import _trace
from neml2.tensors import SR2, Scalar

TESTS = Path(__file__).resolve().parents[1]
ELASTICITY = TESTS.parents[2] / "examples" / "elasticity.i"
CHABOCHE = Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i"

# The tutorial programs (the tutorial elides the load line; v3 users write it as below).
SUMMARY = """import neml2

model = neml2.load_model("input.i", "eq")
print(model)
"""
TRACING = """import neml2
from neml2.tensors import Scalar
import torch

torch.set_default_dtype(torch.double)
model = neml2.load_model("input.i", "eq")

a = Scalar.full(1.0)
b = Scalar.full(2.0)
c = Scalar.full(3.0)
t = Scalar.full(0.1)
a_n = Scalar.full(0.0)
b_n = Scalar.full(1.0)
c_n = Scalar.full(2.0)
t_n = Scalar.full(0.0)

model.value(
    {
        "a": a,
        "b": b,
        "c": c,
        "t": t,
        "a~1": a_n,
        "b~1": b_n,
        "c~1": c_n,
        "t~1": t_n,
    }
)
print(torch.jit.last_executed_optimized_graph())
"""
OPTIMIZATION = """import neml2
from neml2.tensors import Scalar
import torch

torch.set_default_dtype(torch.double)
model = neml2.load_model("input.i", "eq")

a = Scalar.full(1.0)
b = Scalar.full(2.0)
c = Scalar.full(3.0)
t = Scalar.full(0.1)
a_n = Scalar.full(0.0)
b_n = Scalar.full(1.0)
c_n = Scalar.full(2.0)
t_n = Scalar.full(0.0)

inputs = {
    "a": a,
    "b": b,
    "c": c,
    "t": t,
    "a~1": a_n,
    "b~1": b_n,
    "c~1": c_n,
    "t~1": t_n,
}
for i in range(10):
    model.value(inputs)
print(torch.jit.last_executed_optimized_graph())
"""


@pytest.fixture
def tutorial_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder with the tutorial's ``input.i`` as cwd; dtype and tracing restored after."""
    (tmp_path / "input.i").write_text(THREE_RATES_INPUT)
    monkeypatch.chdir(tmp_path)
    dtype, tracing = torch.get_default_dtype(), neml2.jit.tracing_enabled()
    yield tmp_path
    torch.set_default_dtype(dtype)
    neml2.jit.set_tracing(tracing)


def _run(code: str) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    exec(compile(code, "tutorial.py", "exec"), scope)
    return scope


def test_summary(tutorial_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(SUMMARY)
    inputs = "".join(f"{n} [Scalar]\n" for n in THREE_RATES_GRAPH_INPUTS)
    outputs = "a_rate [Scalar]\nb_rate [Scalar]\nc_rate [Scalar]\n"
    assert capsys.readouterr().out == f"Name: eq\nInput: {inputs}Output: {outputs}"


def test_tracing_shows_profiling_graph(
    tutorial_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    neml2.jit.set_tracing(True)
    scope = _run(TRACING)
    check_three_rates_torchscript(capsys.readouterr().out, profiling=True)
    model = scope["model"]
    assert len(vars(model)[_trace._STATE]) == 1  # traced once, for this signature
    names = {"a": "a", "a~1": "a_n", "b": "b", "b~1": "b_n", "c": "c", "c~1": "c_n", "t": "t"}
    out = model.value({k: scope[v] for k, v in {**names, "t~1": "t_n"}.items()})
    assert list(out) == ["a_rate", "b_rate", "c_rate"]
    for name in out:
        assert isinstance(out[name], Scalar) and out[name].data.shape == ()
        torch.testing.assert_close(out[name].data, torch.tensor(10.0, dtype=torch.float64))


def test_optimization_env_opt_in(tutorial_dir: Path) -> None:
    """The program as a user runs it: ``NEML2_JIT_TRACE=1`` switches tracing on."""
    (tutorial_dir / "ex.py").write_text(OPTIMIZATION)
    env = {**os.environ, _trace.ENV_VAR: "1"}
    run = subprocess.run(
        [sys.executable, "ex.py"], cwd=tutorial_dir, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    check_three_rates_torchscript(run.stdout, profiling=False)
    assert "deprecated" not in run.stderr  # the opt-in silences torch.jit.trace's notice


def test_off_by_default(tutorial_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert os.environ.get(_trace.ENV_VAR) is None and not neml2.jit.tracing_enabled()

    def no_trace(*args: object, **kwargs: object) -> None:
        raise AssertionError("traced with tracing off")

    monkeypatch.setattr(torch.jit, "trace", no_trace)
    scope = _run(OPTIMIZATION.replace("print(torch.jit.last_executed_optimized_graph())", ""))
    assert _trace._STATE not in vars(scope["model"])
    out = scope["model"].value(scope["inputs"])
    torch.testing.assert_close(out["a_rate"].data, torch.tensor(10.0, dtype=torch.float64))


def test_traced_values_parameters_and_shapes(tutorial_dir: Path) -> None:
    """Parameters are graph inputs (``set_parameter`` takes effect); a new shape re-traces."""
    model = neml2.load_model(ELASTICITY, "model", dtype=torch.float64)
    eager = neml2.load_model(ELASTICITY, "model", dtype=torch.float64)
    (name,) = model.input_spec
    strain = {name: SR2(torch.rand(4, 6, dtype=torch.float64))}

    def same() -> None:
        with neml2.jit.tracing():
            traced = model.value(strain)
        for k, v in eager.value(strain).items():
            torch.testing.assert_close(traced[k].data, v.data)

    same()
    assert len(vars(model)[_trace._STATE]) == 1 and _trace._STATE not in vars(eager)
    pname, p = next(iter(model.named_parameters()))
    new = 2 * p.detach().clone()
    for m in (model, eager):
        m.set_parameter(pname, new)
    same()
    assert len(vars(model)[_trace._STATE]) == 1
    with neml2.jit.tracing():
        model.value({name: SR2(torch.rand(2, 3, 6, dtype=torch.float64))})
    assert len(vars(model)[_trace._STATE]) == 2


def test_implicit_update_runs_eagerly(tutorial_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data-dependent Newton loop is not traced (as for ``neml2.compile``); same errors."""
    model = neml2.load_model(CHABOCHE, "model", dtype=torch.float64)
    monkeypatch.setattr(torch.jit, "trace", lambda *a, **k: pytest.fail("traced"))
    with pytest.raises(KeyError, match="missing input variable") as off:
        model.value({})
    with neml2.jit.tracing(), pytest.raises(KeyError, match="missing input variable") as on:
        model.value({})
    assert str(on.value) == str(off.value)
    assert vars(model)[_trace._STATE] is None  # decided once: never traced
