r"""Route parity: one suite, written against :class:`neml2.models.RouteModel`, on all six routes.

Every test takes the route under test from ``route_model`` (``conftest.py``) and checks it against
an independent computation in numpy, never against another route:

- ``elasticity.i``: Hooke's law in Mandel notation, :math:`\sigma = \lambda\,\mathrm{tr}\,
  \varepsilon\,\mathbf 1 + 2\mu\,\varepsilon`, and its constant stiffness :math:`C`.
- ``sub_batch.i``: :math:`y = -2 x^2` on each of 3 sites (a declared sub-batch), next to Hooke's
  law; :math:`\partial y/\partial x = -4x` site by site, :math:`\partial y/\partial s = x^2` for
  the scaling :math:`s`, :math:`\partial \sigma/\partial E = \sigma / E`.
- ``scalar_implicit.i``: one backward Euler step of :math:`\dot x = a x^3`, the real root of
  :math:`r = x - x_{n} - h a x^3 = 0` (:math:`h = t - t_{n}`); by the implicit function
  theorem, with :math:`r_x = 1 - 3 h a x^2`,

  .. math::
     \frac{\partial x}{\partial x_n} = \frac1{r_x},\quad
     \frac{\partial x}{\partial t} = -\frac{\partial x}{\partial t_n} = \frac{a x^3}{r_x},\quad
     \frac{\partial x}{\partial a} = \frac{h x^3}{r_x},

  and zero for the warm-start input ``x``.
- ``scalar_substep.i``: the same step with Newton capped at 9 iterations and up to 3 halvings.
  Which rows are cut depends on iteration counts, so the check does not guess them: each row must
  equal backward Euler over one of the 26 partitions of the step that recursive bisection to
  depth 3 can make, and rows with large steps must differ from the one-step root.

Tolerances: Hooke's law is a few flops per component (1e-12). The implicit steps stop when the
residual falls below ``rel_tol = 1e-10`` of its initial value (or ``abs_tol = 1e-12``); one more
quadratic Newton step would change ``x`` by about ``|r| / r_x``, so values are compared to 1e-9
relative and the IFT derivatives, evaluated at that ``x``, to 1e-8.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
import torch

from neml2.models import RouteModel
from neml2.solvers import ConvergenceError
from neml2.tensors import Scalar, Tensor, TensorWrapper

RouteLoader = Callable[[str], RouteModel]
F64 = torch.float64
E, NU = 1e3, 0.3  # elasticity.i
A = -2.0  # scalar_implicit.i: implicit_rate.rate.scaling
SCALING = "implicit_rate.rate.scaling"


def raw(value: Any) -> np.ndarray:
    """A route's value (a typed wrapper, a dynamic ``Tensor`` or a torch tensor) as numpy."""
    data = value.data if isinstance(value, TensorWrapper | Tensor) else value
    assert isinstance(data, torch.Tensor)
    return np.asarray(data.detach().cpu().numpy())


def close(got: Any, want: np.ndarray, rtol: float, atol: float = 0.0) -> None:
    """``got`` has ``want``'s shape and values."""
    g = raw(got)
    assert g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol)


# ------------------------------------------------------------------ independent references
def stiffness() -> np.ndarray:
    """Isotropic stiffness in Mandel notation (6 x 6)."""
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    c = 2 * mu * np.eye(6)
    c[:3, :3] += lam
    return c


def backward_euler(x_start: np.ndarray, h: np.ndarray, a: float = A) -> np.ndarray:
    """The real root of ``x - x_start - h a x^3`` (a <= 0, h >= 0: r is increasing), by Newton
    from ``x_start`` iterated to a fixed point."""
    x = np.array(x_start, dtype=np.float64)
    for _ in range(100):
        x = x - (x - x_start - h * a * x**3) / (1 - 3 * h * a * x**2)
    return x


def bisections(depth: int) -> list[list[tuple[float, float]]]:
    """Every partition of [0, 1] that recursive bisection to ``depth`` levels can make."""
    if depth == 0:
        return [[(0.0, 1.0)]]
    out = [[(0.0, 1.0)]]
    for left, right in itertools.product(bisections(depth - 1), repeat=2):
        out.append(
            [(a / 2, b / 2) for a, b in left] + [(0.5 + a / 2, 0.5 + b / 2) for a, b in right]
        )
    return out


def integrate(x1: np.ndarray, h: np.ndarray, pieces: list[tuple[float, float]]) -> np.ndarray:
    """Backward Euler from ``x1`` over the pieces ``[(a, b), ...]`` of a step of length ``h``."""
    x = x1
    for a, b in pieces:
        x = backward_euler(x, (b - a) * h)
    return x


def steps(n: int, span: float, seed: int) -> dict[str, torch.Tensor]:
    """``n`` steps from the guess x = 1: x~1 in [0.5, 2], t - t~1 in [0, span]."""
    g = torch.Generator().manual_seed(seed)
    t1 = 10 * torch.rand(n, generator=g, dtype=F64)
    return {
        "x": torch.ones(n, dtype=F64),
        "x~1": 0.5 + 1.5 * torch.rand(n, generator=g, dtype=F64),
        "t": t1 + span * torch.rand(n, generator=g, dtype=F64),
        "t~1": t1,
    }


def step_of(x: Mapping[str, torch.Tensor]) -> tuple[np.ndarray, np.ndarray]:
    """(x~1, h) of a step, broadcast."""
    x1, t, t1 = (raw(x[k]) for k in ("x~1", "t", "t~1"))
    x1, h = np.broadcast_arrays(x1, t - t1)
    return np.array(x1), np.array(h)


# ------------------------------------------------------------------ elasticity
def test_elastic_stress_is_hookes_law(route_model: RouteLoader) -> None:
    m = route_model("elasticity")
    eps = torch.rand(5, 6, generator=torch.Generator().manual_seed(1), dtype=F64) - 0.5
    y = m.value({"strain": eps})
    assert list(y) == ["stress"]
    close(y["stress"], raw(eps) @ stiffness().T, rtol=1e-12)


def test_a_batchless_input_gives_a_batchless_result(route_model: RouteLoader) -> None:
    eps = torch.tensor([1e-3, -2e-3, 0.5e-3, 0.0, 1e-3, 0.0], dtype=F64)
    y = route_model("elasticity").value({"strain": eps})
    close(y["stress"], stiffness() @ raw(eps), rtol=1e-12)


def test_elastic_jacobian_is_the_stiffness(route_model: RouteLoader) -> None:
    eps = torch.rand(5, 6, generator=torch.Generator().manual_seed(2), dtype=F64)
    y, J = route_model("elasticity").jacobian({"strain": eps})
    close(y["stress"], raw(eps) @ stiffness().T, rtol=1e-12)
    close(J["stress"]["strain"], np.broadcast_to(stiffness(), (5, 6, 6)), rtol=1e-12, atol=1e-12)


def test_elastic_jvp_is_the_stiffness_times_the_tangent(route_model: RouteLoader) -> None:
    g = torch.Generator().manual_seed(3)
    eps, deps = (torch.rand(5, 6, generator=g, dtype=F64) for _ in range(2))
    _, dy = route_model("elasticity").jvp({"strain": eps}, {"strain": deps})
    close(dy["stress"], raw(deps) @ stiffness().T, rtol=1e-12)


def test_a_batch_of_tangents_gives_a_batch_of_directional_derivatives(
    route_model: RouteLoader,
) -> None:
    eps = torch.tensor([1e-3, -2e-3, 0.5e-3, 0.0, 1e-3, 0.0], dtype=F64)  # batch-less
    deps = torch.rand(4, 6, generator=torch.Generator().manual_seed(13), dtype=F64)
    y, dy = route_model("elasticity").jvp({"strain": eps}, {"strain": deps})
    close(y["stress"], stiffness() @ raw(eps), rtol=1e-12)
    close(dy["stress"], raw(deps) @ stiffness().T, rtol=1e-12)


# ------------------------------------------------------------------ a sub-batch of sites
def sites(seed: int) -> dict[str, Any]:
    """``sub_batch.i``'s inputs: x on 3 sites per batch entry (a declared sub-batch), strain."""
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(5, 3, generator=g, dtype=F64)
    return {"x": Scalar(x, sub_batch_ndim=1), "strain": torch.rand(5, 6, generator=g, dtype=F64)}


def test_sub_batched_sites_evaluate_per_site(route_model: RouteLoader) -> None:
    x = sites(11)
    y = route_model("sub_batch").value(x)
    xs = raw(x["x"])
    close(y["y"], -2 * xs**2, rtol=1e-12)
    assert tuple(y["y"].sub_batch_shape) == (3,)
    close(y["stress"], raw(x["strain"]) @ stiffness().T, rtol=1e-12)


def test_sub_batched_derivatives_are_site_diagonal(route_model: RouteLoader) -> None:
    m = route_model("sub_batch")
    x = sites(12)
    xs, stress = raw(x["x"]), raw(x["strain"]) @ stiffness().T
    _, J = m.jacobian(x)
    close(J["y"]["x"], -4 * xs, rtol=1e-12)  # (*B, *S): one entry per site
    close(J["stress"]["strain"], np.broadcast_to(stiffness(), (5, 6, 6)), rtol=1e-12, atol=1e-12)
    _, P = m.param_jacobian(x)
    close(P["y"]["square.scaling"], xs**2, rtol=1e-12)
    close(P["stress"]["elastic.E"], stress / E, rtol=1e-12)


# ------------------------------------------------------------------ one implicit step
def test_implicit_step_is_the_backward_euler_root(route_model: RouteLoader) -> None:
    x = steps(5, 2.0, seed=4)
    y = route_model("scalar_implicit").value(x)
    close(y["x"], backward_euler(*step_of(x)), rtol=1e-9)


def test_batches_broadcast(route_model: RouteLoader) -> None:
    x = steps(5, 2.0, seed=5)
    x["t~1"] = torch.tensor(0.0, dtype=F64)  # batch-less
    x["t"] = torch.tensor([1.5], dtype=F64)  # batch (1,)
    y = route_model("scalar_implicit").value(x)
    close(y["x"], backward_euler(*step_of(x)), rtol=1e-9)


def test_implicit_jacobian_follows_the_implicit_function_theorem(route_model: RouteLoader) -> None:
    x = steps(5, 2.0, seed=6)
    y, J = route_model("scalar_implicit").jacobian(x)
    x1, h = step_of(x)
    xs = backward_euler(x1, h)
    rx = 1 - 3 * h * A * xs**2
    close(y["x"], xs, rtol=1e-9)
    close(J["x"]["x"], np.zeros(5), rtol=0, atol=1e-12)
    close(J["x"]["x~1"], 1 / rx, rtol=1e-8)
    close(J["x"]["t"], A * xs**3 / rx, rtol=1e-8)
    close(J["x"]["t~1"], -A * xs**3 / rx, rtol=1e-8)


def test_implicit_jvp(route_model: RouteLoader) -> None:
    x = steps(5, 2.0, seed=7)
    dx1 = torch.linspace(-1, 1, 5, dtype=F64)
    _, dy = route_model("scalar_implicit").jvp(x, {"x~1": dx1, "t": torch.ones(5, dtype=F64)})
    x1, h = step_of(x)
    xs = backward_euler(x1, h)
    close(dy["x"], (raw(dx1) + A * xs**3) / (1 - 3 * h * A * xs**2), rtol=1e-8)


def test_parameter_derivatives(route_model: RouteLoader) -> None:
    m = route_model("scalar_implicit")
    x = steps(5, 2.0, seed=8)
    x1, h = step_of(x)
    xs = backward_euler(x1, h)
    dxda = h * xs**3 / (1 - 3 * h * A * xs**2)
    _, P = m.param_jacobian(x)
    close(P["x"][SCALING], dxda, rtol=1e-8)
    c = torch.linspace(0.5, 1.5, 5, dtype=F64)
    g = m.param_vjp(x, {"x": c})
    close(g[SCALING], np.asarray(np.sum(raw(c) * dxda)), rtol=1e-8)


def test_parameters_by_public_name(route_model: RouteLoader) -> None:
    m = route_model("scalar_implicit")
    params = dict(m.named_parameters())
    close(params[SCALING], np.asarray(A), rtol=0)
    assert tuple(m.parameter_base_shapes()[SCALING]) == ()


def test_set_parameter_changes_the_next_call(route_model: RouteLoader) -> None:
    m = route_model("scalar_implicit")
    x = steps(5, 2.0, seed=9)
    x1, h = step_of(x)
    try:
        m.set_parameter(SCALING, torch.tensor(-0.5, dtype=F64))
        close(dict(m.named_parameters())[SCALING], np.asarray(-0.5), rtol=0)
        close(m.value(x)["x"], backward_euler(x1, h, a=-0.5), rtol=1e-9)
    finally:
        m.set_parameter(SCALING, torch.tensor(A, dtype=F64))
    close(m.value(x)["x"], backward_euler(x1, h), rtol=1e-9)


# ------------------------------------------------------------------ substepping
def test_a_failed_step_is_integrated_over_a_bisection(route_model: RouteLoader) -> None:
    x = steps(64, 150.0, seed=3)
    y = raw(route_model("scalar_substep").value(x)["x"])
    x1, h = step_of(x)
    candidates = np.stack([integrate(x1, h, part) for part in bisections(3)])
    err = np.abs(candidates - y) / np.abs(y)
    assert np.all(err.min(axis=0) < 1e-9), "a row matches no bisection of its step"
    cut = err[0] > 1e-6  # rows that are not the one-step root
    assert cut.sum() >= 8, "the large steps were not cut"
    assert np.all(err[0][~cut] < 1e-9)


def test_exhausted_substepping_is_a_recoverable_convergence_error(route_model: RouteLoader) -> None:
    with pytest.raises(ConvergenceError, match=r"substepping exhausted: \d+ element\(s\)"):
        route_model("scalar_substep").value(steps(8, 1e5, seed=10))
