"""Sub-batched unknowns (per-site axes): dense and block structures, cross-site coupling."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from backward_euler import CUBIC, cubic_root
from narrow import narrow

from neml2.factory import load_string
from neml2.models.common.implicit_update import ImplicitUpdate
from neml2.tensors import SR2, Scalar

RNG = np.random.default_rng(13)
B, S = 2, 3


def _seed(model: ImplicitUpdate, per_variable: bool) -> None:
    """Seed every variable separately (as for export), or by group (the default at B * S)."""
    system = model.system
    if per_variable:
        system.prepare_for_capture()
    else:
        assert min(system.PER_VARIABLE_SEEDS_FROM, system.PER_VARIABLE_GIVEN_SEEDS_FROM) > B * S


def _site_inputs() -> dict[str, Any]:
    xn = torch.as_tensor(RNG.uniform(0.5, 2.0, (B, S)), dtype=torch.float64)
    return {
        "x": Scalar(torch.zeros((), dtype=torch.float64)),  # unbatched guess: expanded
        "x~1": Scalar(xn, sub_batch_ndim=1),
        "t": Scalar(torch.tensor(0.6, dtype=torch.float64)),
        "t~1": Scalar(torch.tensor([0.1, 0.2], dtype=torch.float64)),
    }


@pytest.mark.parametrize("per_variable", [True, False], ids=["per_variable", "per_group"])
@pytest.mark.parametrize("structure", ["dense", "block"])
def test_per_site_solve_and_ift(structure: str, per_variable: bool) -> None:
    hit = CUBIC.replace("unknowns = 'x'", f"unknowns = 'x'\n    structure = '{structure}'")
    model = narrow(load_string(hit).get_model("model"), ImplicitUpdate)
    _seed(model, per_variable)
    x = _site_inputs()
    with torch.no_grad():
        (got,) = model(*model.wrap_inputs(x))
    assert got.sub_batch_shape == (S,)
    dt = (x["t"].data - x["t~1"].data).unsqueeze(-1).numpy()
    want = cubic_root(x["x~1"].data.numpy(), dt)
    np.testing.assert_allclose(got.data.numpy(), want, rtol=1e-10)
    # forward IFT w.r.t. the per-site given x~1 and the global t: dx/dx~1 = 1/(6 dt x^2 + 1)
    _, J = model.jacobian(x)
    d = 1.0 / (6 * dt * want**2 + 1)
    jx = J["x"]["x~1"].data.numpy()
    if structure == "dense":  # the dense group couples sites: (*B, S_out, S_in) layout
        np.testing.assert_allclose(np.diagonal(jx, axis1=-2, axis2=-1), d, rtol=1e-10)
        np.testing.assert_allclose(jx * (1 - np.eye(S)), 0.0, atol=1e-14)
    else:  # per-site blocks keep the site-diagonal layout (*B, S)
        np.testing.assert_allclose(jx, d, rtol=1e-10)
    np.testing.assert_allclose(J["x"]["t"].data.numpy(), -2 * want**3 * d, rtol=1e-10)
    # reverse mode through the same solve
    xn = x["x~1"].data.clone().requires_grad_(True)
    (out,) = model(*model.wrap_inputs({**x, "x~1": Scalar(xn, sub_batch_ndim=1)}))
    (g,) = torch.autograd.grad(out.data.sum(), xn)
    np.testing.assert_allclose(g.numpy(), d, rtol=1e-10)


def test_unmarked_batched_guess_rejected() -> None:
    model = narrow(load_string(CUBIC).get_model("model"), ImplicitUpdate)
    x = {**_site_inputs(), "x": Scalar(torch.zeros(B, dtype=torch.float64))}
    with pytest.raises(
        ValueError, match=r"'x': expected sub-batch shape \(3,\).*without sub-batch"
    ):
        model(*model.wrap_inputs(x))


def test_conflicting_sub_batch_shapes() -> None:
    model = narrow(load_string(CUBIC).get_model("model"), ImplicitUpdate)
    x = {**_site_inputs(), "x": Scalar(torch.zeros(B, 4, dtype=torch.float64), sub_batch_ndim=1)}
    with pytest.raises(ValueError, match=r"conflicting sub-batch shapes for unknown 'x'"):
        model(*model.wrap_inputs(x))


def test_settings_declaration_expands_unbatched_givens() -> None:
    hit = CUBIC + "[Settings]\n  [example_batch_shape]\n    x = '(2; 3)'\n  []\n[]\n"
    model = narrow(load_string(hit).get_model("model"), ImplicitUpdate)
    x = {**_site_inputs(), "x~1": Scalar(torch.tensor(1.5, dtype=torch.float64))}
    with torch.no_grad():
        (got,) = model(*model.wrap_inputs(x))
    assert got.sub_batch_shape == (S,)
    dt = (x["t"].data - x["t~1"].data).unsqueeze(-1).expand(B, S).numpy()
    np.testing.assert_allclose(got.data.numpy(), cubic_root(np.full((B, S), 1.5), dt), rtol=1e-10)


# per-site s (SR2, sub-batch S) coupled to a global y (SR2) through the site mean:
#   s_rate = -2 s + y,  y_rate = -y + mean_s(s)   (linear; backward Euler)
COUPLED = """
[Models]
  [srate]
    type = SR2LinearCombination
    from = 's y'
    weights = '-2 1'
    to = 's_rate'
  []
  [mean]
    type = SR2IntermediateMean
    from = 's'
    to = 'm'
    reduces = 'site'
  []
  [yrate]
    type = SR2LinearCombination
    from = 'y m'
    weights = '-1 1'
    to = 'y_rate'
  []
  [rs]
    type = SR2BackwardEulerTimeIntegration
    variable = 's'
  []
  [ry]
    type = SR2BackwardEulerTimeIntegration
    variable = 'y'
  []
  [residual]
    type = ComposedModel
    models = 'srate mean yrate rs ry'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = '${unknowns}'
    structure = '${structure}'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = '${linear}'
  []
  [lu]
    type = DenseLU
  []
  [schur]
    type = SchurComplement
    primary_solver = 'lu'
    schur_solver = 'lu'
  []
[]
"""


def _coupled_reference(sn: np.ndarray, yn: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Solve the linear backward-Euler system per batch entry and component with numpy."""
    s_out, y_out = np.empty_like(sn), np.empty_like(yn)
    for b in range(sn.shape[0]):
        for c in range(6):
            M = np.zeros((S + 1, S + 1))
            rhs = np.concatenate([sn[b, :, c], [yn[b, c]]])
            for i in range(S):  # s_i (1 + 2 dt) - dt y = s_i,n
                M[i, i] = 1 + 2 * dt
                M[i, S] = -dt
                M[S, i] = -dt / S  # y (1 + dt) - dt mean(s) = y_n
            M[S, S] = 1 + dt
            z = np.linalg.solve(M, rhs)
            s_out[b, :, c], y_out[b, c] = z[:S], z[S]
    return s_out, y_out


@pytest.mark.parametrize("per_variable", [True, False], ids=["per_variable", "per_group"])
@pytest.mark.parametrize(
    ("unknowns", "structure", "linear"),
    [("s y", "dense", "lu"), ("s; y", "block dense", "schur"), ("s; y", "dense dense", "schur")],
)
def test_cross_site_coupling(
    unknowns: str, structure: str, linear: str, per_variable: bool
) -> None:
    hit = (COUPLED.replace("${unknowns}", unknowns).replace("${structure}", structure)
           .replace("${linear}", linear))  # fmt: skip
    model = narrow(load_string(hit).get_model("model"), ImplicitUpdate)
    _seed(model, per_variable)
    sn = RNG.normal(size=(B, S, 6))
    yn = RNG.normal(size=(B, 6))
    x = {
        "s": SR2(torch.zeros(6, dtype=torch.float64)),
        "y": SR2(torch.zeros(6, dtype=torch.float64)),
        "s~1": SR2(torch.as_tensor(sn), sub_batch_ndim=1),
        "y~1": SR2(torch.as_tensor(yn)),
        "t": Scalar(torch.tensor(0.5, dtype=torch.float64)),
        "t~1": Scalar(torch.tensor(0.0, dtype=torch.float64)),
    }
    with torch.no_grad():
        s, y = model(*model.wrap_inputs(x))
    ws, wy = _coupled_reference(sn, yn, 0.5)
    np.testing.assert_allclose(s.data.numpy(), ws, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.data.numpy(), wy, rtol=1e-10, atol=1e-12)
    # d y / d y~1 (global given) by the IFT vs the reference system's inverse
    _, J = model.jacobian(x)
    h = 1e-6
    yp = {**x, "y~1": SR2(torch.as_tensor(yn) + h * torch.eye(6, dtype=torch.float64)[0])}
    with torch.no_grad():
        _, y2 = model(*model.wrap_inputs(yp))
    fd = (y2.data - y.data) / h
    torch.testing.assert_close(J["y"]["y~1"].data[..., 0], fd, rtol=1e-6, atol=1e-9)
