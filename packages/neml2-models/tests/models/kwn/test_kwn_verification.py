"""KWN group verification against classical closed forms.

* Steady-state CNT nucleation rate of a composed model (ideal-solution driving force → barrier
  and critical radius → Zeldovich and kinetic factors → nucleation flux) against classical
  nucleation theory written out independently in SI units (``_cnt_rate``).
* Volume fraction of a discretised log-normal size distribution against its analytic third
  moment, with the second-order convergence in the bin width (and its leading constant).
* Parabolic growth R = sqrt(R0^2 + 2 k t) of a precipitate at fixed supersaturation under both
  growth laws (rate-limited and SFFK), integrated by backward Euler: first-order convergence.
* py-jit route: the CNT model through ``neml2.compile`` equals py-eager (values and Jacobians,
  float64, 1e-12 relative).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

import neml2
from neml2.models.testing import ModelCase, case_id, check_model
from neml2.tensors import Scalar

RG, KB, NA = 8.314462618, 1.380649e-23, 6.02214076e23
GAMMA, VM, XEQ, XP, D, N0 = 0.2, 1.0e-5, 0.01, 0.35, 1.0e-19, 1.0e28

CNT_HIT = f"""
[Models]
  [driving]
    type = IdealSolutionVolumetricDrivingForce
    current_concentrations = 'x'
    gas_constant = {RG}
    equilibrium_concentrations = {XEQ}
  []
  [barrier]
    type = NucleationBarrierAndCriticalRadius
    surface_energy = {GAMMA}
    total_gibbs_free_energy_difference = 'driving_force'
    molar_volume = {VM}
  []
  [zeldovich]
    type = ZeldovichFactor
    surface_energy = {GAMMA}
    molar_volume = {VM}
    avogadro_number = {NA}
    boltzmann_constant = {KB}
  []
  [projected]
    type = ProjectedDiffusivitySum
    far_field_concentrations = 'x'
    concentration_differences = {XP - 0.0}
    diffusivities = {D}
  []
  [kinetic]
    type = KineticFactor
    molar_volume = {VM}
    avogadro_number = {NA}
  []
  [flux]
    type = NucleationFluxMagnitude
    nucleation_site_density = {N0}
    boltzmann_constant = {KB}
  []
  [model]
    type = ComposedModel
    models = 'driving barrier zeldovich projected kinetic flux'
  []
[]
"""


def _cnt_rate(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Classical nucleation theory, independent of the models' parametrisation.

    Driving force per unit volume dg_v = R T ln(x/x_eq)/V_m; R* = 2 gamma/dg_v;
    dG* = 16 pi gamma^3/(3 dg_v^2); atomic volume Omega = V_m/N_a, a = Omega^(1/3);
    n* = (4 pi/3) R*^3/Omega atoms in the critical nucleus, Z = sqrt(dG*/(3 pi k T n*^2));
    attachment rate beta* = 4 pi R*^2 D x/(a^4 dx^2) (SFFK form, dx the composition jump);
    J = Z beta* N0 exp(-dG*/(k T)).
    """
    T, c = x["temperature"], x["x"]
    dgv = RG * T * np.log(c / XEQ) / VM
    rstar = 2 * GAMMA / dgv
    barrier = 16 * np.pi * GAMMA**3 / (3 * dgv**2)
    omega = VM / NA
    nstar = 4 * np.pi / 3 * rstar**3 / omega
    z = np.sqrt(barrier / (3 * np.pi * KB * T * nstar**2))
    beta = 4 * np.pi * rstar**2 * D * c / (omega ** (4 / 3) * XP**2)
    return {"nucleation_flux_magnitude": z * beta * N0 * np.exp(-barrier / (KB * T))}


RNG = np.random.default_rng(7)
CASES = [
    ModelCase("kwn-cnt-nucleation-rate", CNT_HIT,
              {"temperature": RNG.uniform(650, 800, 7), "x": RNG.uniform(0.03, 0.06, (1,))},
              _cnt_rate, rtol=1e-12, atol=0.0, rtol32=2e-4, atol32=0.0, fd_rtol=1e-5),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_kwn_verification_case(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_kwn_cnt_rate_sweep() -> None:
    """Over supersaturations 2..8 the rate spans many decades; relative error stays ~1e-14."""
    model = neml2.load_string(CNT_HIT).get_model("model")
    T = np.full(25, 700.0)
    c = np.linspace(0.02, 0.08, 25)
    out = model.value({"temperature": torch.tensor(T), "x": torch.tensor(c)})
    got = out["nucleation_flux_magnitude"].data.detach().numpy()
    want = _cnt_rate({"temperature": T, "x": c})["nucleation_flux_magnitude"]
    assert want.max() / want.min() > 1e6
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ----------------------------------------------------------------------------- log-normal
MU, SIGMA, NTOT, RMAX = math.log(2.0), 0.3, 1.5, 20.0
VF_HIT = """
[Models]
  [model]
    type = PrecipitateVolumeFraction
    radius = 'R'
  []
[]
"""


def _lognormal_cdf(r: np.ndarray) -> np.ndarray:
    z = (np.log(np.maximum(r, 1e-300)) - MU) / (SIGMA * math.sqrt(2.0))
    return np.where(r > 0, 0.5 * (1.0 + np.vectorize(math.erf)(z)), 0.0)


def _discrete_volume_fraction(nbins: int) -> tuple[float, float]:
    """(f_h, h): bins of width h on [0, RMAX], n_b = N (CDF(r_b+1) - CDF(r_b)), R_b the centre."""
    model = neml2.load_string(VF_HIT).get_model("model")
    edges = np.linspace(0.0, RMAX, nbins + 1)
    n = NTOT * np.diff(_lognormal_cdf(edges))
    r = 0.5 * (edges[1:] + edges[:-1])
    out = model.value({"number_density": Scalar(torch.tensor(n), sub_batch_ndim=1),
                       "R": Scalar(torch.tensor(r), sub_batch_ndim=1)})  # fmt: skip
    return float(out["volume_fraction"].data.detach()), RMAX / nbins


def test_kwn_lognormal_volume_fraction_converges_second_order() -> None:
    """f_h - f = (4/3) pi N E[R] h^2/4 + O(h^4), f = (4/3) pi N exp(3 mu + 9 sigma^2/2)."""
    exact = 4 * math.pi / 3 * NTOT * math.exp(3 * MU + 4.5 * SIGMA**2)
    mean_r = math.exp(MU + 0.5 * SIGMA**2)
    errs, hs = [], []
    for nb in (60, 120, 240, 480):
        f, h = _discrete_volume_fraction(nb)
        errs.append(f - exact)
        hs.append(h)
    orders = [math.log(errs[i] / errs[i + 1]) / math.log(hs[i] / hs[i + 1]) for i in range(3)]
    assert all(abs(p - 2.0) < 1e-3 for p in orders), orders
    lead = 4 * math.pi / 3 * NTOT * mean_r / 4
    assert errs[-1] / hs[-1] ** 2 == pytest.approx(lead, rel=1e-5)
    assert abs(errs[-1]) / exact < 1e-3


# ----------------------------------------------------------------------------- growth
K_RL = 1.3 * (0.05 - 0.01) / 0.3  # D (x - x_eq) / dx of the rate-limited law
K_SF = 0.9 / (2.0 * 1.5 * 0.8)  # dg / (R_g T s) of the SFFK law
R0, T_END = 0.5, 2.0
GROWTH_HIT = """
[Models]
  [limited]
    type = RateLimitedPrecipitateGrowthRate
    radius = 'Ra'
    equilibrium_concentration = 0.01
    concentration_difference = 0.3
    diffusivity = 1.3
    growth_rate = 'Ra_rate'
  []
  [sffk]
    type = SFFKPrecipitationGrowthRate
    radius = 'Rb'
    gibbs_free_energy_difference = 0.9
    gas_constant = 2.0
    growth_rate = 'Rb_rate'
  []
  [integrate_a]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'Ra'
  []
  [integrate_b]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'Rb'
  []
  [residual]
    type = ComposedModel
    models = 'limited sffk integrate_a integrate_b'
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
    unknowns = 'Ra Rb'
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


def _parabolic(t: np.ndarray, k: float) -> np.ndarray:
    """Diffusion-controlled growth dR/dt = k/R: R = sqrt(R0^2 + 2 k t)."""
    out: np.ndarray = np.sqrt(R0**2 + 2 * k * t)
    return out


def _t(v: float) -> torch.Tensor:
    return torch.tensor([float(v)], dtype=torch.float64)


def test_kwn_parabolic_growth_first_order_convergence() -> None:
    """Both growth laws at fixed supersaturation, integrated by backward Euler, against the
    parabolic law: first-order convergence in the time step."""
    model = neml2.load_string(GROWTH_HIT).get_model("model")
    fixed = {"current_concentration": _t(0.05),
             "projected_diffusivity_sum": _t(1.5), "temperature": _t(0.8)}  # fmt: skip
    errs = []
    for n in (10, 20, 40, 80):
        t = np.linspace(0.0, T_END, n + 1)
        ra, rb = [_t(R0)], [_t(R0)]
        for i in range(n):
            old = {"Ra~1": ra[-1], "Rb~1": rb[-1], "Ra": ra[-1], "Rb": rb[-1]}  # guess: old
            out = model.value({**fixed, **old,
                               "t": _t(t[i + 1]), "t~1": _t(t[i])})  # fmt: skip
            ra.append(out["Ra"].data.detach())
            rb.append(out["Rb"].data.detach())
        ea = np.abs(torch.cat(ra).numpy() - _parabolic(t, K_RL)).max()
        eb = np.abs(torch.cat(rb).numpy() - _parabolic(t, K_SF)).max()
        errs.append((ea, eb))
    e = np.array(errs)
    orders = np.log2(e[:-1] / e[1:])
    assert np.all(np.abs(orders[-1] - 1.0) < 0.05), orders
    assert np.all(orders > 0.9), orders
    assert np.all(e[-1] < 5e-3), e


# ----------------------------------------------------------------------------- py-jit
def _check(hit: str, inputs: dict[str, Any]) -> None:
    eager, jit = (neml2.load_string(hit).get_model("model") for _ in "ab")
    neml2.compile(jit)
    ye, yj = eager.value(inputs), jit.value(inputs)
    assert ye.keys() == yj.keys()
    for k in ye:
        torch.testing.assert_close(yj[k].data, ye[k].data, rtol=1e-12, atol=0.0)
    Je, Jj = eager.jacobian(inputs)[1], jit.jacobian(inputs)[1]
    assert Je.keys() == Jj.keys()
    for o in Je:
        assert Je[o].keys() == Jj[o].keys()
        for i in Je[o]:
            torch.testing.assert_close(Jj[o][i].data, Je[o][i].data, rtol=1e-12, atol=0.0)


def test_kwn_cnt_model_compiles(dtype: torch.dtype) -> None:
    """The group verification model through ``neml2.compile`` (float64 only: 1e-12 check;
    compiling costs seconds, so one model; every type is traced by the AOT sweep of CASES)."""
    if dtype != torch.float64:
        pytest.skip("py-jit equality is checked in float64")
    rng = np.random.default_rng(3)
    _check(CNT_HIT, {"temperature": torch.tensor(rng.uniform(650, 800, 5)),
                     "x": torch.tensor(rng.uniform(0.03, 0.06, 5))})  # fmt: skip
