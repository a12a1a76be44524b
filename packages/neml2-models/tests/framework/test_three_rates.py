"""Three ScalarVariableRate leaves composed: summary print and name-keyed evaluation."""

from __future__ import annotations

from pathlib import Path

import torch

import neml2
from neml2.tensors import Scalar

INPUT = Path(__file__).parent / "inputs" / "three_rates.i"

SUMMARY = """Name: eq
Input: a [Scalar]
a~1 [Scalar]
b [Scalar]
b~1 [Scalar]
c [Scalar]
c~1 [Scalar]
t [Scalar]
t~1 [Scalar]
Output: a_rate [Scalar]
b_rate [Scalar]
c_rate [Scalar]"""


def test_print_summary(capsys: object) -> None:
    model = neml2.load_model(INPUT, "eq")
    print(model)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert out == SUMMARY + "\n"


def test_value(dtype: torch.dtype, device: torch.device) -> None:
    model = neml2.load_model(INPUT, "eq", dtype=dtype, device=device)
    vals = {"a": 1.0, "b": 2.0, "c": 3.0, "t": 0.1, "a~1": 0.0, "b~1": 1.0, "c~1": 2.0, "t~1": 0.0}
    inputs = {k: Scalar(torch.tensor(x, dtype=dtype, device=device)) for k, x in vals.items()}
    out = model.value(inputs)
    assert list(out) == ["a_rate", "b_rate", "c_rate"]
    for v in "abc":
        want = (vals[v] - vals[f"{v}~1"]) / (vals["t"] - vals["t~1"])
        got = out[f"{v}_rate"]
        assert isinstance(got, Scalar)
        torch.testing.assert_close(got.data, torch.tensor(want, dtype=dtype, device=device))
    assert model.call_by_name(inputs).keys() == out.keys()
