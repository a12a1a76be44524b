"""ImplicitUpdate: backward Euler of dx/dt = -k x, IFT derivatives (forward and reverse), errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import torch
from backward_euler import BE, CUBIC, cubic_root
from narrow import narrow

from neml2.factory import load_string
from neml2.models.common.implicit_update import ImplicitUpdate
from neml2.models.model import Model
from neml2.models.testing import ModelCase, case_id, check_model
from neml2.solvers import ConvergenceError

RNG = np.random.default_rng(7)

# k promoted to an input variable of the residual model (weights = 'w' is a bare variable)
BE_PROMOTED = BE.replace("weights = '-1.5'", "weights = 'w'")

WITH_PREDICTOR = BE.replace(
    "    solver = 'newton'\n",
    "    solver = 'newton'\n    predictor = 'predictor'\n",
).replace(
    "[EquationSystems]",
    """[Models]
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'x'
  []
[]
[EquationSystems]""",
)


def _be(x: dict[str, np.ndarray], k: float | np.ndarray = 1.5) -> dict[str, np.ndarray]:
    return {"x": x["x~1"] / (1.0 + k * (x["t"] - x["t~1"]))}


def _cubic(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Real root of 2 dt x^3 + x - x~1 = 0 (numpy, independent of the model)."""
    return {"x": cubic_root(np.asarray(x["x~1"]), np.asarray(x["t"] - x["t~1"]))}


_T = {"t": [0.5, 0.7, 0.3], "t~1": [0.0, 0.1, 0.2]}
CASES = [
    ModelCase("backward_euler", BE, inputs={"x": np.zeros(3), "x~1": [1.0, -2.0, 3.0], **_T},
              expected=_be),
    ModelCase("promoted_rate", BE_PROMOTED,
              inputs={"x": np.zeros(3), "x~1": [1.0, -2.0, 3.0], "w": [-1.0, -0.5, -2.0], **_T},
              expected=lambda x: _be(x, -x["w"])),
    ModelCase("nonlinear", CUBIC, inputs={"x": np.zeros(3), "x~1": [1.0, -2.0, 3.0], **_T},
              expected=_cubic),
    ModelCase("predictor", WITH_PREDICTOR, inputs={"x~1": [1.0, -2.0, 3.0], **_T}, expected=_be),
]  # fmt: skip


def _for_dtype(hit: str, dtype: torch.dtype) -> str:
    """Newton tolerances near the dtype's resolution (float32 cannot reach the defaults)."""
    tol = "1e-13" if dtype == torch.float64 else "1e-6"
    return hit.replace(
        "type = Newton\n", f"type = Newton\n    abs_tol = {tol}\n    rel_tol = {tol}\n"
    )


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_implicit_update(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    # values; jacobian() (forward IFT) vs autograd (reverse IFT) and finite differences
    check_model(dataclasses.replace(case, hit=_for_dtype(case.hit, dtype)), dtype=dtype,
                device=device)  # fmt: skip


def _inputs(dtype: torch.dtype, device: torch.device, n: int = 4) -> dict[str, torch.Tensor]:
    raw = {
        "x": np.zeros(n),
        "x~1": RNG.uniform(0.5, 2.0, n),
        "t": np.array(0.8),
        "t~1": RNG.uniform(0.0, 0.3, n),
    }
    return {k: torch.as_tensor(v, dtype=dtype, device=device) for k, v in raw.items()}


def test_machine_precision(dtype: torch.dtype, device: torch.device) -> None:
    model = narrow(
        load_string(_for_dtype(BE, dtype), dtype=dtype, device=device).get_model("model"),
        ImplicitUpdate,
    )
    x = _inputs(dtype, device)
    with torch.no_grad():
        got = model.value(x)["x"].data
    want = x["x~1"] / (1.0 + 1.5 * (x["t"] - x["t~1"]))
    eps = torch.finfo(dtype).eps
    torch.testing.assert_close(got, want, rtol=4 * eps, atol=0.0)
    assert model.last_result.iterations == 1  # linear residual: one Newton update


def test_reverse_mode_parameter_and_inputs(device: torch.device) -> None:
    """dL/dk, dL/dx~1, dL/dt through loss.backward() vs the closed form x = x~1/(1 + k dt)."""
    dtype = torch.float64
    # submodules and parameters by attribute (nn.Module's dynamic lookup)
    model: Any = load_string(BE, dtype=dtype, device=device).get_model("model")
    x = _inputs(dtype, device)
    xn = x["x~1"].clone().requires_grad_(True)
    t = x["t"].clone().requires_grad_(True)
    out = model.value({**x, "x~1": xn, "t": t})["x"].data
    loss = (out**2).sum()
    loss.backward()
    w = model.implicit_rate.rate.weight_0
    k = -w.detach()
    dt = (t - x["t~1"]).detach()
    sol = xn.detach() / (1 + k * dt)
    torch.testing.assert_close(xn.grad, 2 * sol / (1 + k * dt), rtol=1e-12, atol=0)
    torch.testing.assert_close(t.grad, (2 * sol * (-sol * k / (1 + k * dt))).sum(), rtol=1e-12,
                               atol=0)  # fmt: skip
    # dx/dw = x~1 dt / (1 - w dt)^2
    torch.testing.assert_close(w.grad, (2 * sol * xn.detach() * dt / (1 + k * dt) ** 2).sum(),
                               rtol=1e-12, atol=0)  # fmt: skip
    # the guess input gets no gradient path
    g = x["x"].clone().requires_grad_(True)
    out = model.value({**x, "x": g})["x"].data
    assert not out.requires_grad or torch.autograd.grad(out.sum(), g, allow_unused=True)[0] is None


def test_reverse_matches_finite_differences_nonlinear(device: torch.device) -> None:
    dtype = torch.float64
    model = narrow(load_string(CUBIC, dtype=dtype, device=device).get_model("model"), Model)
    x = _inputs(dtype, device)
    rate: Any = model.get_submodule("implicit_rate.rate")
    (g,) = torch.autograd.grad(model.value(x)["x"].data.sum(), [rate.scaling])
    h = 1e-6
    vals = []
    with torch.no_grad():
        for s in (h, -h):
            rate.scaling.add_(s)
            vals.append(model.value(x)["x"].data.sum())
            rate.scaling.sub_(s)
    fd = (vals[0] - vals[1]) / (2 * h)
    torch.testing.assert_close(g, fd, rtol=1e-7, atol=0)


def test_forward_jacobian_matches_autograd_grad(device: torch.device) -> None:
    dtype = torch.float64
    model = load_string(BE_PROMOTED, dtype=dtype, device=device).get_model("model")
    x = {**_inputs(dtype, device), "w": torch.tensor([-1.0, -0.5, -2.0, -1.2], dtype=dtype,
                                                     device=device)}  # fmt: skip
    _, J = model.jacobian(x)
    leaves = {n: v.clone().requires_grad_(True) for n, v in x.items()}
    out = model.value(leaves)["x"].data
    for n in ("x~1", "t", "t~1", "w"):
        (g,) = torch.autograd.grad(out.sum(), leaves[n], retain_graph=True)
        want = g if g.shape == J["x"][n].data.shape else g.expand_as(J["x"][n].data)
        if n == "t":  # t is shared by the batch: autograd sums over it
            torch.testing.assert_close(J["x"][n].data.sum(), g, rtol=1e-12, atol=0)
            continue
        torch.testing.assert_close(J["x"][n].data, want, rtol=1e-12, atol=0)
    assert torch.count_nonzero(J["x"]["x"].data) == 0  # guess tangents are ignored


def test_io_without_and_with_predictor() -> None:
    plain = narrow(load_string(BE).get_model("model"), ImplicitUpdate)
    assert list(plain.input_spec) == ["x", "x~1", "t", "t~1"]
    assert list(plain.output_spec) == ["x"]
    pred = narrow(load_string(WITH_PREDICTOR).get_model("model"), ImplicitUpdate)
    assert list(pred.input_spec) == ["x~1", "t", "t~1"]
    assert "predictor" in dict(pred.named_children())
    assert "implicit_rate.rate.weight_0" in dict(pred.named_parameters())
    x = {"x~1": torch.tensor([1.0, 2.0]), "t": torch.tensor(1.0), "t~1": torch.tensor(0.0)}
    x = {n: v.double() for n, v in x.items()}
    out = pred.value(x)
    assert set(out) == {"x"}
    torch.testing.assert_close(out["x"].data, x["x~1"] / 2.5, rtol=1e-14, atol=0)
    res = pred(*pred.wrap_inputs(x))
    assert isinstance(res, tuple) and len(res) == 1  # always a tuple, even with one unknown


def test_divergence_raises_recoverable_error() -> None:
    # 1 + k dt = 0: A is singular at every iterate, the Newton step is non-finite
    model = load_string(BE.replace("'-1.5'", "'1.0'")).get_model("model")
    x = {
        "x": torch.zeros(2),
        "x~1": torch.ones(2),
        "t": torch.tensor(1.0),
        "t~1": torch.tensor(0.0),
    }
    x = {n: v.double() for n, v in x.items()}
    with pytest.raises(ConvergenceError, match=r"Nonlinear solve failed with status MAXITER.*"
                       r"ImplicitUpdate 'model'.*diverged"), torch.no_grad():  # fmt: skip
        model.value(x)
    assert issubclass(ConvergenceError, RuntimeError)


def test_iteration_cap_raises_recoverable_error() -> None:
    hit = CUBIC.replace("type = Newton\n", "type = Newton\n    max_its = 2\n")
    model = load_string(hit).get_model("model")
    x = {n: v for n, v in _inputs(torch.float64, torch.device("cpu")).items()}
    x["x~1"] = x["x~1"] * 50
    with pytest.raises(ConvergenceError, match=r"status MAXITER.*failed to converge in 2"):
        model.value(x)


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ("    solver = 'newton'\n", "    solver = 'newton'\n    incremental_variables = 'x'\n",
         r"\[Models/model\].*'incremental_variables'.*'x' is not a given"),
        ("    solver = 'newton'\n", "    solver = 'newton'\n    max_substepping_level = -1\n",
         r"\[Models/model\].*'max_substepping_level'"),
        ("    solver = 'newton'\n", "    solver = 'newton'\n    input_sensitivity_solver = 'newton'\n",
         r"\[Models/model\].*'input_sensitivity_solver'.*direct"),
        ("    solver = 'newton'\n", "    solver = 'lu'\n", r"\[Models/model\].*'solver'"),
        ("    solver = 'newton'\n", "    solver = 'newton'\n    predictor = 'nope'\n",
         r"No \[Models/nope\]"),
        ("    solver = 'newton'\n", "    solver = 'newton'\n    tolerance = 1\n",
         r"\[Models/model\].*unknown option"),
    ],
)  # fmt: skip
def test_bad_options(old: str, new: str, match: str) -> None:
    with pytest.raises((ValueError, TypeError, KeyError), match=match):
        load_string(BE.replace(old, new)).get_model("model")


def test_captured_failure_attaches_mask_and_unknowns(monkeypatch: pytest.MonkeyPatch) -> None:
    """NEML2_CAPTURE_SOLVE_FAILURE: converged rows are flagged and their unknowns returned."""
    monkeypatch.setenv("NEML2_CAPTURE_SOLVE_FAILURE", "1")
    hit = CUBIC.replace("type = Newton\n", "type = Newton\n    max_its = 4\n")
    model = load_string(hit).get_model("model")
    x = _inputs(torch.float64, torch.device("cpu"), n=2)
    x["x~1"] = torch.tensor([0.01, 500.0], dtype=torch.float64)  # easy row, hard row
    with pytest.raises(ConvergenceError) as info:
        model.value(x)
    err = info.value
    assert err.converged_mask is not None and err.converged_mask.tolist() == [True, False]
    assert isinstance(err.unknowns, dict) and set(err.unknowns) == {"x"}
    want = _cubic({k: v.numpy() for k, v in x.items()})["x"][0]
    torch.testing.assert_close(err.unknowns["x"].data[0], torch.tensor(want).double(), rtol=1e-9,
                               atol=0)  # fmt: skip


def test_param_jacobian_and_vjp() -> None:
    """Model.param_jacobian / param_vjp (functional_call copies) go through the adjoint."""
    model = load_string(BE).get_model("model")
    x = _inputs(torch.float64, torch.device("cpu"))
    w, dt = -1.5, x["t"] - x["t~1"]
    want = x["x~1"] * dt / (1 - w * dt) ** 2
    _, J = model.param_jacobian(x)
    torch.testing.assert_close(J["x"]["implicit_rate.rate.weight_0"].reshape(-1), want,
                               rtol=1e-12, atol=0)  # fmt: skip
    torch.testing.assert_close(J["x"]["implicit_rate.rate.offset"].reshape(-1), dt / (1 - w * dt),
                               rtol=1e-12, atol=0)  # fmt: skip
    cot = torch.as_tensor(RNG.normal(size=4), dtype=torch.float64)
    g = model.param_vjp(x, {"x": cot})
    torch.testing.assert_close(g["implicit_rate.rate.weight_0"], (cot * want).sum(), rtol=1e-12,
                               atol=0)  # fmt: skip


def test_matrix_free_newton() -> None:
    """GMRES inside Newton (matrix-free A v); IFT then assembles A with a DenseLU."""
    hit = CUBIC.replace("linear_solver = 'lu'", "linear_solver = 'gmres'").replace(
        "  [lu]\n", "  [gmres]\n    type = GMRES\n    rel_tol = 1e-12\n  []\n  [lu]\n"
    )
    model = load_string(_for_dtype(hit, torch.float64)).get_model("model")
    x = _inputs(torch.float64, torch.device("cpu"))
    with torch.no_grad():
        got = model.value(x)["x"].data
    want = _cubic({k: v.numpy() for k, v in x.items()})["x"]
    torch.testing.assert_close(got, torch.as_tensor(want), rtol=1e-10, atol=0)
    _, J = model.jacobian(x)
    # d/dx~1 of 2 dt x^3 + x = x~1  =>  dx/dx~1 = 1 / (6 dt x^2 + 1)
    dt = x["t"] - x["t~1"]
    torch.testing.assert_close(J["x"]["x~1"].data, 1 / (6 * dt * got**2 + 1), rtol=1e-10, atol=0)


def test_linear_extrapolation_predictor_guess() -> None:
    """The predictor's inputs replace the guess; a good guess converges with fewer updates."""
    hit = CUBIC.replace(
        "    solver = 'newton'\n", "    solver = 'newton'\n    predictor = 'pred'\n"
    )
    hit = hit.replace(
        "[EquationSystems]",
        "[Models]\n  [pred]\n    type = LinearExtrapolationPredictor\n    unknowns_Scalar = 'x'\n"
        "  []\n[]\n[EquationSystems]",
    )
    model = narrow(load_string(_for_dtype(hit, torch.float64)).get_model("model"), ImplicitUpdate)
    assert list(model.input_spec) == ["x~1", "t", "t~1", "x~2", "t~2"]
    x = {k: v for k, v in _inputs(torch.float64, torch.device("cpu")).items() if k != "x"}
    with torch.no_grad():
        cold = model.value({**x, "x~2": x["x~1"], "t~2": x["t~1"] - 0.1})["x"].data
        iters_cold = model.last_result.iterations
        # extrapolate exactly onto the solution: x~2 chosen so the linear guess equals x*
        s = (x["t"] - x["t~1"]) / 0.1
        x2 = x["x~1"] - (cold - x["x~1"]) / s
        hot = model.value({**x, "x~2": x2, "t~2": x["t~1"] - 0.1})["x"].data
    torch.testing.assert_close(hot, cold, rtol=1e-13, atol=0)
    assert model.last_result.iterations == 0 < iters_cold
