"""jacobian() block layouts with sub-batch reductions / site mixing, dynamic-batch errors, and the
harness (unbatched inputs, wrong derivatives are caught)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import neml2
from neml2.models.model import Model
from neml2.models.testing import ModelCase, check_jacobian, check_model, make_inputs
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, Scalar

F64 = torch.float64
RNG = np.random.default_rng(5)


def _reduction(t: str, extra: str = "") -> Any:
    hit = f"[Models]\n[m]\n type = SR2{t}\n from = x\n to = y\n {extra}\n[]\n[]\n"
    return neml2.load_string(hit).get_model("m")


def test_sub_batch_sum_full_layout() -> None:
    """IntermediateMean over sub axis (N=3): J[b, o, t, i] = δ_oi / N for every site t."""
    m = _reduction("IntermediateMean", "reduces = g")
    x = SR2(torch.tensor(RNG.normal(size=(2, 3, 6))), sub_batch_ndim=1)
    _, J = m.jacobian({"x": x})
    blk = J["y"]["x"]
    assert (blk.batch_ndim, blk.sub_batch_ndim) == (1, 0)
    want = (torch.eye(6, dtype=F64)[:, None, :] / 3.0).expand(2, 6, 3, 6)
    torch.testing.assert_close(blk.data, want)


def test_sub_batch_diff_full_layout() -> None:
    """IntermediateDiff: J[b, s, o, t, i] = (δ(t, s+1) − δ(t, s)) δ_oi."""
    m = _reduction("IntermediateDiff", "reduces = c\n dim = 0")
    x = SR2(torch.tensor(RNG.normal(size=(2, 4, 6))), sub_batch_ndim=1)
    _, J = m.jacobian({"x": x})
    blk = J["y"]["x"]
    assert (blk.batch_ndim, blk.sub_batch_ndim) == (1, 1)
    sel = torch.eye(4, dtype=F64)
    d = sel[1:] - sel[:-1]  # (s, t)
    want = d[:, None, :, None] * torch.eye(6, dtype=F64)[None, :, None, :]
    torch.testing.assert_close(blk.data, want.expand(2, 3, 6, 4, 6))


SITE_MIX = """
[Models]
  [sum]
    type = SR2IntermediateSum
    from = x
    to = s
    reduces = g
  []
  [add]
    type = SR2LinearCombination
    from = 'x s'
    to = y
  []
  [m]
    type = ComposedModel
    models = 'sum add'
  []
[]
"""


def test_site_mixing_same_shape_gives_full_layout() -> None:
    """y_t = x_t + Σ_s x_s keeps the sub shape but couples sites: full (t, s) block."""
    m = neml2.load_string(SITE_MIX).get_model("m")
    x = SR2(torch.tensor(RNG.normal(size=(2, 3, 6))), sub_batch_ndim=1)
    _, J = m.jacobian({"x": x})
    blk = J["y"]["x"]
    eye6 = torch.eye(6, dtype=F64)
    want = (torch.eye(3, dtype=F64) + 1.0)[:, None, :, None] * eye6[None, :, None, :]
    torch.testing.assert_close(blk.data, want.expand(2, 3, 6, 3, 6))
    case = ModelCase("mix", SITE_MIX, {"x": x.data}, model="m", sub_batch={"x": 1})
    check_model(case)


def test_pointwise_sub_batch_stays_site_diagonal() -> None:
    """A pointwise model on sub-batched inputs keeps v3's (*B, *S, *out_base, *in_base)."""
    hit = "[Models]\n[m]\n type = SR2LinearCombination\n from = 'a b'\n to = c\n[]\n[]\n"
    case = ModelCase(
        "pointwise",
        hit,
        {"a": RNG.normal(size=(2, 3, 6)), "b": RNG.normal(size=(2, 6))},
        lambda x: {"c": x["a"] + x["b"][:, None]},
        model="m",
        sub_batch={"a": 1},
    )
    check_model(case)
    m = neml2.load_string(hit).get_model("m")
    _, J = m.jacobian(make_inputs(m, case.inputs, F64, "cpu", case.sub_batch))
    assert J["c"]["a"].data.shape == (2, 3, 6, 6)
    assert J["c"]["b"].data.shape == (2, 3, 6, 6)


@pytest.mark.parametrize(
    ("t", "extra", "shape", "sub"),
    [
        ("DynamicSum", "dim = 0", (3, 4, 6), 0),
        ("DynamicMean", "dim = -1", (3, 4, 2, 6), 1),
        ("IntermediateSum", "reduces = g", (3, 4, 6), 0),
    ],
)
def test_dynamic_batch_reduction_raises(
    t: str, extra: str, shape: tuple[int, ...], sub: int
) -> None:
    m = _reduction(t, extra)
    x = SR2(torch.tensor(RNG.normal(size=shape)), sub_batch_ndim=sub)
    pattern = rf"jacobian\(\): SR2{t} 'm': output 'y' .* input 'x' .* Model\.jvp"
    with pytest.raises(ValueError, match=pattern):
        m.jacobian({"x": x})
    _, jv = m.jvp({"x": x}, {"x": torch.ones(shape, dtype=F64)})  # jvp still works
    assert jv["y"].data.shape == m.value({"x": x})["y"].data.shape


def test_harness_unbatched_inputs() -> None:
    """Inputs without any batch axis (finite differences used to crash on h.reshape())."""
    hit = "[Models]\n[m]\n type = ScalarLinearCombination\n from = 'a b'\n to = c\n weights = '2 w'\n[]\n[]\n"
    case = ModelCase(
        "nobatch",
        hit,
        {"a": 0.3, "b": -1.2, "w": 0.7},
        lambda x: {"c": 2 * x["a"] + x["w"] * x["b"]},
        model="m",
    )
    check_model(case)


class _WrongSlope(Model):
    """y = x^2 with a deliberately wrong derivative 3x (the harness must reject it)."""

    hit = HitSchema(input("x", Scalar, "x"), output("y", Scalar, "y"))

    def forward(self, x: Any, *, v: Any = None) -> Any:
        y = x * x
        if v is None:
            return y
        return y, *self.propagate_tangents(v, "y", {"x": lambda d: 3.0 * x * d}, output=y)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_harness_catches_wrong_derivative(shape: tuple[int, ...]) -> None:
    m = _WrongSlope()
    case = ModelCase("wrong", "", {"x": RNG.normal(size=shape)})
    inputs = make_inputs(m, case.inputs, F64, "cpu")
    with pytest.raises(AssertionError, match=r"J\[y\]\[x\] vs autograd"):
        check_jacobian(case, m, inputs)
