"""``[Tensors] type = Python`` runs code from the input file. Expressions see the documented
names only (tensor types, torch, math, np) with a few builtins: no imports, no ``__import__``/
``open``/``eval``, no ``_`` attributes, no file I/O or code loading through torch/numpy. And
Python tensors can be switched off: ``allow_python=False``, ``NEML2_ALLOW_PYTHON_TENSORS=0``,
``--no-python-tensors`` (neml2-run, neml2-inspect; neml2-compile in neml2-aoti's tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

import neml2
from neml2.cli import inspect as inspect_cli
from neml2.cli.run import main as run_main
from neml2.factory import InputError

HIT = """[Tensors]
  [x]
    type = Python
    expr = '''{expr}'''
  []
[]
"""


def _tensor(expr: str, allow_python: bool | None = None) -> Any:
    return neml2.load_string(HIT.format(expr=expr), allow_python=allow_python).get_tensor("x")


@pytest.mark.parametrize(
    ("expr", "refusal"),
    [
        ("__import__('os').system('true')", r"name '__import__' is not allowed"),
        ("open('/etc/hostname').read()", r"NameError: name 'open' is not defined"),
        ("eval('1 + 1')", r"NameError: name 'eval' is not defined"),
        ("getattr(torch, 'load')", r"NameError: name 'getattr' is not defined"),
        ("import os\nresult = 1", r"import statements are not allowed"),
        ("().__class__.__base__", r"attribute '.__class__' is not allowed"),
        ("torch.ones(1)._version", r"attribute '._version' is not allowed"),
        ("torch.load('m.pt')", r"attribute '.load' is not allowed"),
        ("torch.os", r"'torch.os' is not available"),
        ("torch.hub", r"attribute '.hub' is not allowed"),
        ("np.fromfile('/etc/hostname')", r"attribute '.fromfile' is not allowed"),
        ("torch.ones(2).numpy().tofile('out.bin')", r"attribute '.tofile' is not allowed"),
        ("[y for y in (z for z in [1]).gi_frame.f_back.f_globals]", r"'.gi_frame' is not allowed"),
    ],
)
def test_expressions_cannot_reach_beyond_numbers(expr: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=r"<string>:2: \[Tensors/x\] expr raised .*" + refusal):
        _tensor(expr)


@pytest.mark.parametrize(
    "expr",
    [
        "SR2(torch.nn.functional.pad(torch.ones(3, 1, dtype=torch.float64), (0, 5)))",
        "Scalar(torch.linalg.norm(torch.ones(3, dtype=torch.float64)))",
        "result = Scalar(torch.tensor([min(1.0, 2.0), float(len(range(3))), math.pi], dtype=torch.float64))",
        "MillerIndex(torch.tensor([1, 1, 0], dtype=torch.int64))",
        "Scalar(torch.full((2,), float(np.float64(1.5)), dtype=torch.float64))",
    ],
)
def test_documented_names_still_work(expr: str) -> None:
    assert hasattr(_tensor(expr), "data")


def test_switched_off_by_argument_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    expr = "Scalar(torch.ones(2, dtype=torch.float64))"
    with pytest.raises(
        InputError,
        match=r"<string>:2: \[Tensors/x\] \(type='Python'\): Python tensors are switched off",
    ):
        _tensor(expr, allow_python=False)
    monkeypatch.setenv("NEML2_ALLOW_PYTHON_TENSORS", "0")
    with pytest.raises(InputError, match="switched off"):
        _tensor(expr)
    torch.testing.assert_close(
        _tensor(expr, allow_python=True).data, torch.ones(2, dtype=torch.float64)
    )
    monkeypatch.setenv("NEML2_ALLOW_PYTHON_TENSORS", "1")
    assert hasattr(_tensor(expr), "data")


MODEL = """[Tensors]
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


def test_tools_switch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.i"
    path.write_text(MODEL)
    assert inspect_cli.main([str(path), "model", "--no-python-tensors"]) == 1
    assert "[Tensors/E] (type='Python'): Python tensors are switched off" in capsys.readouterr().err
    assert inspect_cli.main([str(path), "model"]) == 0
    assert "Parameters (2)" in capsys.readouterr().out
    drv = tmp_path / "d.i"
    drv.write_text(
        MODEL + "[Drivers]\n  [driver]\n    type = TransientDriver\n    model = 'model'\n"
        "    prescribed_time = 'E'\n  []\n[]\n"
    )
    assert run_main([str(drv), "driver", "--no-python-tensors"]) == 1
    assert "Python tensors are switched off" in capsys.readouterr().err
