r"""Group verification: reaction kinetics integrated implicitly vs closed-form solutions.

Two conversion degrees evolve side by side in one ``ImplicitUpdate`` (backward Euler via
``ScalarBackwardEulerTimeIntegration``, Newton) at constant rate coefficients:

* Avrami-Erofeev :math:`\dot a = k(1 - a)L^n`, :math:`L = -\ln(1 - a)`: since
  :math:`\dot L = \dot a/(1 - a) = k L^n`, :math:`L^{1-n} = (1 - n)k t` (with :math:`L(0) = 0`),
  i.e. :math:`a(t) = 1 - \exp(-(k' t)^m)` with :math:`m = 1/(1 - n)`, :math:`k' = (1 - n)k = k/m`
  (here :math:`k = 0.8, n = 1/2`: :math:`m = 2`, :math:`k' = 0.4`);
* contracting geometry :math:`\dot c = k(1 - c)^n`: :math:`(1 - c)^{1-n} = 1 - (1 - n)k t`, i.e.
  :math:`c(t) = 1 - (1 - (1 - n)k t)^{1/(1-n)}` (here :math:`k = 0.3, n = 2/3`, full conversion at
  :math:`t = 10`).

The runs start at :math:`t = 0.5` from the exact state (the nucleation law has the trivial
solution :math:`a \equiv 0` from :math:`a = 0`) and end at :math:`t = 5`; the error at the end
halves with the time step (first order). A model composing all five types of the group goes through
``neml2.compile`` and matches py-eager to 1e-12 (values and Jacobian).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import neml2
from neml2.factory import load_string

K_AE, N_AE, K_CG, N_CG = 0.8, 0.5, 0.3, 2.0 / 3.0
T0, T1 = 0.5, 5.0

HIT = f"""
[Models]
  [nucleation]
    type = AvramiErofeevNucleation
    conversion_degree = a
    reaction_rate = a_rate
    coef = {K_AE}
    order = {N_AE}
  []
  [contracting]
    type = ContractingGeometry
    conversion_degree = c
    reaction_rate = c_rate
    coef = {K_CG}
    order = {N_CG!r}
  []
  [integrate_a]
    type = ScalarBackwardEulerTimeIntegration
    variable = a
  []
  [integrate_c]
    type = ScalarBackwardEulerTimeIntegration
    variable = c
  []
  [residual]
    type = ComposedModel
    models = 'nucleation contracting integrate_a integrate_c'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'a c'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'a c'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-13
    rel_tol = 1e-12
  []
  [lu]
    type = DenseLU
  []
[]
"""

ALL_TYPES = """
[Models]
  [geometry]
    type = CylindricalChannelGeometry
  []
  [diffusion]
    type = DiffusionLimitedReaction
    product_inner_radius = inner_radius
    solid_inner_radius = outer_radius
    reaction_rate = diffusion_rate
    diffusion_coefficient = 0.4
    molar_volume = 1.5
  []
  [nucleation]
    type = AvramiErofeevNucleation
    conversion_degree = a
    reaction_rate = nucleation_rate
    coef = k
    order = 0.6
  []
  [contracting]
    type = ContractingGeometry
    conversion_degree = a
    reaction_rate = contracting_rate
    coef = k
    order = 0.5
  []
  [volume]
    type = EffectiveVolume
    reference_mass = 3.0
    densities = '2.0 1.2'
    mass_fractions = 'solid_fraction product_fraction'
    open_volume_fraction = porosity
  []
  [model]
    type = ComposedModel
    models = 'geometry diffusion nucleation contracting volume'
  []
[]
"""


def avrami(t: np.ndarray) -> np.ndarray:
    m = 1.0 / (1.0 - N_AE)
    return 1.0 - np.exp(-((K_AE / m * t) ** m))


def contracting(t: np.ndarray) -> np.ndarray:
    return 1.0 - (1.0 - (1.0 - N_CG) * K_CG * t) ** (1.0 / (1.0 - N_CG))


def _integrate(model: Any, nsteps: int) -> tuple[np.ndarray, np.ndarray]:
    """Backward-Euler histories (a, c) on a uniform grid of ``nsteps`` steps over [T0, T1]."""
    t = np.linspace(T0, T1, nsteps + 1)
    a = [torch.tensor(avrami(t[:1]))]
    c = [torch.tensor(contracting(t[:1]))]
    for i in range(nsteps):
        tt = (torch.tensor(t[i + 1 : i + 2]), torch.tensor(t[i : i + 1]))
        out = model.value({"a~1": a[-1], "c~1": c[-1], "t": tt[0], "t~1": tt[1]})
        a.append(out["a"].data.detach())
        c.append(out["c"].data.detach())
    return torch.cat(a).numpy(), torch.cat(c).numpy()


def test_backward_euler_first_order_convergence() -> None:
    model = load_string(HIT, dtype=torch.float64).get_model("model")
    levels = (20, 40, 80, 160)
    err_a, err_c = [], []
    for n in levels:
        a, c = _integrate(model, n)
        t = np.linspace(T0, T1, n + 1)
        err_a.append(np.abs(a - avrami(t)).max())
        err_c.append(np.abs(c - contracting(t)).max())
    order_a = np.log2(np.array(err_a[:-1]) / np.array(err_a[1:]))
    order_c = np.log2(np.array(err_c[:-1]) / np.array(err_c[1:]))
    print("errors a", err_a, "orders", order_a)
    print("errors c", err_c, "orders", order_c)
    np.testing.assert_allclose(order_a[-1], 1.0, atol=0.05)
    np.testing.assert_allclose(order_c[-1], 1.0, atol=0.05)
    assert np.all(order_a > 0.85) and np.all(order_c > 0.85)
    assert err_a[-1] < 5e-3 and err_c[-1] < 2e-3


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
        return
    torch.testing.assert_close(b.data, a.data, rtol=1e-12, atol=1e-14)


def test_py_jit_matches_eager(dtype: torch.dtype) -> None:
    """py-jit (``neml2.compile``) of the model composing all five types equals py-eager."""
    if dtype != torch.float64:
        pytest.skip("the py-jit comparison runs in float64")
    rng = np.random.default_rng(3)
    names = ("solid_fraction", "product_fraction", "liquid_reactivity", "solid_reactivity")
    x = {n: torch.tensor(rng.uniform(0.1, 0.4, 4)) for n in names}
    x["a"] = torch.tensor(rng.uniform(0.1, 0.9, 4))
    x["k"] = torch.tensor(rng.uniform(0.5, 2.0, 4))
    x["porosity"] = torch.tensor(rng.uniform(0.0, 0.3, 4))
    eager = load_string(ALL_TYPES, dtype=torch.float64).get_model("model")
    jit = neml2.compile(load_string(ALL_TYPES, dtype=torch.float64).get_model("model"))
    assert set(x) == set(eager.input_spec)
    assert neml2.jit.compiled_models(jit) == [jit]
    _same(eager.value(x), jit.value(x))
    _same(eager.jacobian(x)[1], jit.jacobian(x)[1])
