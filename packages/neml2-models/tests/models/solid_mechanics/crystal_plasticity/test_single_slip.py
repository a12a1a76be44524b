r"""One slip system, power-law flow, linear hardening: stress relaxation in closed form.

A crystal with a single slip system (unit :math:`d \perp n`, Schmid tensor :math:`M`, fixed
orientation), isotropic elasticity, no deformation rate, starting from the elastic strain
:math:`\varepsilon^e_0 = a_0 M`. The strain stays along :math:`M` (:math:`\dot a = -\dot\gamma`),
so :math:`\tau = M:\sigma = 2\mu a\,M:M = \mu a` and

.. math::  \dot\tau = -\mu\dot\gamma_0\Big(\frac{\tau}{A - B\tau}\Big)^n, \qquad
           A = \tau_0 + \theta\tau_i/\mu,\; B = \theta/\mu

(:math:`\hat\tau = \tau_0 + \theta\gamma`, :math:`\gamma = (\tau_i - \tau)/\mu`). Separating,
:math:`t(\tau) = \frac{1}{\mu\dot\gamma_0}\int_\tau^{\tau_i} (A - Bs)^n s^{-n}\,ds`, integrated
term by term for integer :math:`n` (binomial expansion); :math:`\tau(T)` is the root of
:math:`t(\tau) = T`. Backward Euler (the implicit update) converges to it at first order in the
step; two-level extrapolation :math:`2u_{2N} - u_N` removes that term.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import single_slip_crystal  # noqa: F401  (registers [Data] SingleSlipTestCrystal)
import torch

from neml2.factory import load_string
from neml2.tensors import R2, SR2, WR2, Scalar, sym

E, NU = 1e5, 0.3
MU = E / (2 * (1 + NU))
N_EXP, GAMMA0, TAU0, THETA, TAU_I, T_END = 5, 1e-6, 50.0, 200.0, 80.0, 100.0
D_HAT = torch.tensor([1.0, -1.0, 0.0], dtype=torch.float64) / math.sqrt(2.0)
N_HAT = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64) / math.sqrt(3.0)


HIT = f"""
[Data]
  [crystal_geometry]
    type = SingleSlipTestCrystal
  []
[]
[Models]
  [elasticity]
    type = LinearIsotropicElasticity
    coefficients = '{E} {NU}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
  []
  [resolved_shear]
    type = ResolvedShear
  []
  [slip_rule]
    type = PowerLawSlipRule
    n = {N_EXP}
    gamma0 = {GAMMA0}
  []
  [slip_strength]
    type = SingleSlipStrengthMap
    constant_strength = {TAU0}
  []
  [hardening]
    type = LinearSingleSlipHardeningRule
    hardening_slope = {THETA}
  []
  [sum_slip_rates]
    type = SumSlipRates
  []
  [plastic_deformation_rate]
    type = PlasticDeformationRate
  []
  [elastic_stretch]
    type = ElasticStrainRate
  []
  [integrate_elastic_strain]
    type = SR2BackwardEulerTimeIntegration
    variable = 'elastic_strain'
  []
  [integrate_slip_hardening]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'slip_hardening'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'elasticity resolved_shear slip_rule slip_strength hardening sum_slip_rates
              plastic_deformation_rate elastic_stretch integrate_elastic_strain
              integrate_slip_hardening'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
  []
[]
[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'elastic_strain slip_hardening'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-14
    rel_tol = 1e-14
  []
  [lu]
    type = DenseLU
  []
[]
"""


def exact_tau(t_end: float) -> float:
    """τ(t_end) from the closed-form t(τ) (bisection to machine precision)."""
    n = N_EXP
    A, B = TAU0 + THETA * TAU_I / MU, THETA / MU

    def antiderivative(s: float) -> float:
        total = 0.0
        for k in range(n + 1):
            c = math.comb(n, k) * A ** (n - k) * (-B) ** k
            p = k - n + 1
            total += c * (math.log(s) if p == 0 else s**p / p)
        return total

    def t_of(tau: float) -> float:
        return (antiderivative(TAU_I) - antiderivative(tau)) / (MU * GAMMA0)

    lo, hi = 1e-3 * TAU_I, TAU_I  # t_of decreases in tau
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if t_of(mid) < t_end else (mid, hi)
    return 0.5 * (lo + hi)


def schmid() -> torch.Tensor:
    """Mandel vector of M = sym(d ⊗ n)."""
    return sym(R2(torch.outer(D_HAT, N_HAT))).data


@pytest.fixture(scope="module")
def model() -> Any:
    return load_string(HIT).get_model("model")


def relax(model: Any, steps: int) -> float:
    """τ after ``steps`` backward-Euler steps to ``T_END``."""
    M = schmid()
    f64 = torch.float64
    ee = SR2((TAU_I / MU) * M)  # τ_i = μ a_0
    h = Scalar(torch.tensor(0.0, dtype=f64))
    dt = T_END / steps
    fixed = {
        "deformation_rate": SR2(torch.zeros(6, dtype=f64)),
        "vorticity": WR2(torch.zeros(3, dtype=f64)),
        "orientation_matrix": R2(torch.eye(3, dtype=f64)),
    }
    with torch.no_grad():
        for k in range(steps):
            t0, t1 = (
                Scalar(torch.tensor(k * dt, dtype=f64)),
                Scalar(torch.tensor((k + 1) * dt, dtype=f64)),
            )
            x = {
                **fixed,
                "t": t1,
                "t~1": t0,
                "elastic_strain~1": ee,
                "slip_hardening~1": h,
                "elastic_strain": ee,
                "slip_hardening": h,
            }  # old state as the initial guess
            y = model.value({n: x[n] for n in model.input_spec})
            ee, h = y["elastic_strain"], y["slip_hardening"]
    return float(MU * (ee.data @ M) / (M @ M))  # τ = μ a with a = εe:M / M:M


def test_relaxation_converges_at_first_order_to_the_closed_form(model: Any) -> None:
    exact = exact_tau(T_END)
    assert 0.5 * TAU_I < exact < 0.95 * TAU_I  # a substantial relaxation
    steps = [50, 100, 200, 400, 800]
    taus = [relax(model, n) for n in steps]
    errors = [abs(t - exact) / exact for t in taus]
    rates = [math.log2(errors[i] / errors[i + 1]) for i in range(len(errors) - 1)]
    assert all(0.9 < r < 1.1 for r in rates), (errors, rates)
    richardson = 2 * taus[-1] - taus[-2]  # first-order term removed
    assert abs(richardson - exact) / exact < 1e-6, (richardson, exact, errors, rates)
