"""Group verification: steady 1-D advection-diffusion assembled from the finite-volume types.

``d(v u - D du/dx)/dx = 0`` on ``0 < x < 1``, ``u(0) = 0``, ``u(1) = 1``, solved by
``ImplicitUpdate`` + Newton for the ``N`` interior nodes ``x_i = i h`` (``h = 1/(N + 1)``); the
boundary values are appended as ghost cells, the edge velocity is interpolated from the nodes, the
diffusive flux and the divergence are ``FiniteVolumeGradient``. Exact solution
``u = (exp(Pe x) - 1)/(exp(Pe) - 1)``, ``Pe = v/D``.

* upwind advection (``FiniteVolumeUpwindedAdvectiveFlux``): first order; its discrete solution
  is exactly ``(r^i - 1)/(r^(N+1) - 1)`` with ``r = 1 + v h/D``;
* central advection (``LinearlyInterpolateToCellEdges`` of the promoted cell values times the
  edge velocity): second order; exactly ``r = (1 + v h/(2D))/(1 - v h/(2D))``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.tensors import Scalar

V, D = 1.0, 0.2
PE = V / D

_ADVECTION = {
    "upwind": """
  [advection]
    type = FiniteVolumeUpwindedAdvectiveFlux
    u = 'u_ext'
    v_edge = 'v_edge'
    flux = 'advective_flux'
  []""",
    "central": """
  [u_edge]
    type = LinearlyInterpolateToCellEdges
    cell_values = 'u_ext'
    cell_centers = nodes
    cell_edges = edges
    edge_values = 'u_edge'
  []
  [advection]
    type = ScalarMultiplication
    from = 'v_edge u_edge'
    to = 'advective_flux'
  []""",
}


def steady_hit(n: int, scheme: str) -> str:
    """The steady advection-diffusion problem on ``n`` interior nodes."""
    h = 1.0 / (n + 1)
    extra = "u_edge " if scheme == "central" else ""
    return f"""
[Tensors]
  [nodes]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, {n + 2}, dtype=torch.float64)).sub_batch.retag(1)'
  []
  [edges]
    type = Python
    expr = 'Scalar(torch.linspace({-h / 2!r}, {1 + h / 2!r}, {n + 3},
                                  dtype=torch.float64)).sub_batch.retag(1)'
  []
  [velocity]
    type = Python
    expr = 'Scalar(torch.full(({n + 2},), {V!r}, dtype=torch.float64)).sub_batch.retag(1)'
  []
[]
[Models]
  [bc_left]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'u'
    bc_value = 0
  []
  [bc_right]
    type = FiniteVolumeAppendBoundaryCondition
    input = 'u_with_bc_left'
    bc_value = 1
    side = right
    output = 'u_ext'
  []
  [edge_velocity]
    type = LinearlyInterpolateToCellEdges
    cell_values = velocity
    cell_centers = nodes
    cell_edges = edges
    edge_values = 'v_edge'
  []{_ADVECTION[scheme]}
  [diffusion]
    type = FiniteVolumeGradient
    u = 'u_ext'
    dx = {h!r}
    prefactor = {D!r}
    grad_u = 'diffusive_flux'
  []
  [total_flux]
    type = ScalarLinearCombination
    from = 'advective_flux diffusive_flux'
    to = 'flux'
  []
  [divergence]
    type = FiniteVolumeGradient
    u = 'flux'
    dx = {h!r}
    prefactor = -1
    grad_u = 'u_residual'
  []
  [residual]
    type = ComposedModel
    models = '{extra}bc_left bc_right edge_velocity advection diffusion total_flux divergence'
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
    unknowns = 'u'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-12
  []
  [lu]
    type = DenseLU
  []
[]
"""


def _solve(n: int, scheme: str) -> np.ndarray:
    model = load_string(steady_hit(n, scheme)).get_model("model")
    guess = Scalar(torch.zeros(1, n, dtype=torch.float64), sub_batch_ndim=1)
    u: np.ndarray = model.value({"u": guess})["u"].data.detach().numpy()[0]
    return u


def _discrete(n: int, scheme: str) -> np.ndarray:
    """Closed-form solution of the scheme's three-point recurrence."""
    a = V * (1.0 / (n + 1)) / D  # cell Peclet number
    r = 1 + a if scheme == "upwind" else (1 + a / 2) / (1 - a / 2)
    i = np.arange(1, n + 1)
    return (r**i - 1) / (r ** (n + 1) - 1)


@pytest.mark.parametrize(("scheme", "order"), [("upwind", 1.0), ("central", 2.0)])
def test_steady_advection_diffusion_convergence(scheme: str, order: float) -> None:
    errors = []
    sizes = (10, 20, 40, 80)
    for n in sizes:
        u = _solve(n, scheme)
        np.testing.assert_allclose(u, _discrete(n, scheme), rtol=1e-10, atol=1e-12)
        x = np.arange(1, n + 1) / (n + 1)
        errors.append(np.abs(u - np.expm1(PE * x) / np.expm1(PE)).max())
    e = np.array(errors)
    rates = np.log(e[:-1] / e[1:]) / np.log(
        np.array([(b + 1) / (a + 1) for a, b in itertools.pairwise(sizes)])
    )
    assert rates[-1] == pytest.approx(order, abs=0.1), (e, rates)
    assert np.all(np.diff(e) < 0), e
