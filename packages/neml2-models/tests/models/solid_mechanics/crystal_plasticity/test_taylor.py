"""``scenarios/taylor.i`` (FCC Taylor model, implicit) on py-eager.

The converged step is checked against the model's equations written independently in numpy:
backward-Euler updates of the elastic strain and slip hardening, and the exponential-map
orientation update, checked as rotation matrices :math:`R(q) = \\exp(\\Delta t\\,\\Omega) R(q_n)`
(Rodrigues' formula), with every rate recomputed from the converged state.
Tolerance: Newton stops at a residual norm of 1e-10 absolute / 1e-8 relative
(NewtonWithLineSearch defaults), so the equations hold to ~1e-8 of their scale.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from cp_reference import axial, full, mandel, mrp_matrix, skew_matrix

import neml2
from neml2.tensors import MRP, SR2, WR2, Scalar

TAYLOR = Path(os.environ["NEML2_SCENARIOS"]) / "taylor.i"
E, NU = 1e5, 0.3
GAMMA0, N_EXP, TAU0, THETA0, TAU_F = 1.0, 6.0, 30.0, 500.0, 10.0


def step_inputs(batch: int, dt: float = 1.0, rate: float = 1e-3, seed: int = 3) -> dict[str, Any]:
    """One step from the virgin state: random orientations, a uniaxial-type rate with spin."""
    gen = torch.Generator().manual_seed(seed)
    q = MRP.rand(batch, generator=gen)
    D = torch.tensor([1.0, -0.5, -0.5, 0.0, 0.0, 0.0], dtype=torch.float64) * rate
    W = torch.tensor([0.0, 0.0, 0.3], dtype=torch.float64) * rate
    zeros = torch.zeros(batch, dtype=torch.float64)
    return {
        "deformation_rate": SR2(D.expand(batch, 6).clone()),
        "vorticity": WR2(W.expand(batch, 3).clone()),
        "t": Scalar(zeros + dt),
        "t~1": Scalar(zeros.clone()),
        "elastic_strain~1": SR2(torch.zeros(batch, 6, dtype=torch.float64)),
        "slip_hardening~1": Scalar(zeros.clone()),
        "orientation~1": q,
    }


def rodrigues(w: np.ndarray) -> np.ndarray:
    """``exp(skew(w))`` by Rodrigues' formula."""
    out = []
    for v in w:
        th = np.linalg.norm(v)
        K = skew_matrix(v / th) if th > 0 else np.zeros((3, 3))
        out.append(np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K)
    return np.stack(out)


def rates(ee: np.ndarray, tau_bar: np.ndarray, R: np.ndarray, D: np.ndarray, W: np.ndarray,
          dirs: np.ndarray, normals: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(elastic strain rate (3x3), hardening rate, lattice spin (3x3)) from the state."""
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    sigma = lam * np.trace(ee, axis1=-2, axis2=-1)[:, None, None] * np.eye(3) + 2 * mu * ee
    A = np.einsum("si,sj->sij", dirs, normals)
    M, Wi = 0.5 * (A + np.swapaxes(A, 1, 2)), 0.5 * (A - np.swapaxes(A, 1, 2))
    tau = np.einsum("bik,skl,bjl,bij->bs", R, M, R, sigma)
    r = tau / (tau_bar[:, None] + TAU0)
    gdot = GAMMA0 * np.abs(r) ** (N_EXP - 1) * r
    Dp = R @ np.einsum("bs,sij->bij", gdot, M) @ np.swapaxes(R, 1, 2)
    Wp = R @ np.einsum("bs,sij->bij", gdot, Wi) @ np.swapaxes(R, 1, 2)
    ee_rate = D - Dp + W @ ee - ee @ W
    spin = W - Wp + Dp @ ee - ee @ Dp
    h_rate = THETA0 * (1 - tau_bar / TAU_F) * np.abs(gdot).sum(-1)
    return ee_rate, h_rate, spin


@pytest.fixture(scope="module")
def taylor() -> Any:
    return neml2.load_model(TAYLOR, "model_with_stress")


def test_taylor_step_satisfies_the_update_equations(taylor: Any) -> None:
    x = step_inputs(6)
    with torch.no_grad():
        y = taylor.value(x)
    geom = neml2.load_input(TAYLOR).get_data("crystal_geometry")
    ee, h = full(y["elastic_strain"].data.numpy()), y["slip_hardening"].data.numpy()
    R, R_old = (
        mrp_matrix(y["orientation"].data.numpy()),
        mrp_matrix(x["orientation~1"].data.numpy()),
    )
    D, W = full(x["deformation_rate"].data.numpy()), skew_matrix(x["vorticity"].data.numpy())
    ee_rate, h_rate, spin = rates(ee, h, R, D, W, geom.directions.numpy(), geom.normals.numpy())
    dt = 1.0
    np.testing.assert_allclose(ee, dt * ee_rate, rtol=0, atol=1e-10)
    np.testing.assert_allclose(h, dt * h_rate, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(R, rodrigues(axial(dt * spin)) @ R_old, rtol=0, atol=1e-10)
    # plastic flow happened (the stress is far below the elastic trial stress)
    trial = E * 1e-3
    assert np.abs(y["stress"].data.numpy()[:, 0]).max() < 0.5 * trial
    # the stress is the elastic response of the elastic strain
    np.testing.assert_allclose(y["stress"].data.numpy(), mandel(
        E * NU / ((1 + NU) * (1 - 2 * NU)) * np.trace(ee, axis1=-2, axis2=-1)[:, None, None] * np.eye(3)
        + E / (1 + NU) * ee), rtol=1e-12, atol=1e-9)  # fmt: skip


def test_taylor_orientation_stays_on_the_principal_chart(taylor: Any) -> None:
    x = step_inputs(16, seed=11)
    with torch.no_grad():
        q = taylor.value(x)["orientation"].data
    assert (q.pow(2).sum(-1) < 1.0 + 1e-12).all()


def test_taylor_elastic_limit_is_linear_elasticity() -> None:
    """Huge slip resistance: no slip, so the stress is C : (D dt) and the lattice turns with W."""
    model = neml2.load_model(TAYLOR, "model_with_stress")
    model.set_parameter("model.implicit_rate.slip_strength.constant_strength", 1e9)
    x = step_inputs(4, dt=0.5)
    with torch.no_grad():
        y = model.value(x)
    eps = full(x["deformation_rate"].data.numpy()) * 0.5
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    sigma = lam * np.trace(eps, axis1=-2, axis2=-1)[:, None, None] * np.eye(3) + 2 * mu * eps
    # with spin, the corotational strain differs from D dt at second order: |W dt| |eps| ~ 1e-7
    np.testing.assert_allclose(y["stress"].data.numpy(), mandel(sigma), rtol=0, atol=2e-2)
    R, R_old = (
        mrp_matrix(y["orientation"].data.numpy()),
        mrp_matrix(x["orientation~1"].data.numpy()),
    )
    W = x["vorticity"].data.numpy()
    np.testing.assert_allclose(R, rodrigues(0.5 * W) @ R_old, rtol=0, atol=1e-12)


# NEML2 v3.1.0 on this input (``load_model("taylor.i", "model_with_stress")``, ``call_by_name``)
# for the orientations and rates of :func:`v3_case`: outputs of two consecutive steps, the
# second started from the first's state.
V3_TWO_STEPS: dict[int, dict[str, list[Any]]] = {
    1: {
        'slip_hardening': [0.9364388742593311, 1.0546544302114114, 1.0182036314417224, 1.060531422201331],
        'orientation': [[0.10007087979268306, -0.19998146223618127, 0.30005735713642906], [0.5000246815715219, 0.10003208403891019, -0.39975637913599865], [-0.2999764190887193, 0.6000029636344737, 0.19994245153840443], [0.0500815008161851, 0.019985644692404266, -0.699903296759743]],
        'stress': [[15.448067133774252, -10.33376745344693, -5.114299680327322, 3.5707476290853957, -0.9887154647937733, 7.4257272395760054], [19.577937033855257, -14.1115006515379, -5.466436382317408, 3.6739466306703443, -2.72016768310808, -1.198960148558236], [17.8549345838723, -11.46564890267981, -6.389285681192503, -3.671873377112495, 0.917799106686986, 5.577467587520065], [19.57814379380809, -18.01233344567096, -1.5658103481371686, -2.8013335958020376, 0.05505535770865429, -3.3514830872071757]],
        'elastic_strain': [[0.0002008248727390653, -0.0001343389768948101, -6.64858958442552e-05, 4.641971917811014e-05, -1.2853301042319052e-05, 9.653445411448807e-05], [0.0002545131814401185, -0.00018344950846999256, -7.106367297012615e-05, 4.7761306198714474e-05, -3.536217988040504e-05, -1.5586481931257067e-05], [0.00023211414959033993, -0.0001490534357348375, -8.30607138555025e-05, -4.773435390246244e-05, 1.193138838693082e-05, 7.250707863776084e-05], [0.0002545158693195053, -0.0002341603347937224, -2.035553452578307e-05, -3.6417336745426486e-05, 7.157196502125058e-07, -4.356928013369328e-05]],
    },
    2: {
        'slip_hardening': [2.0085753085276754, 2.288045768509675, 2.1797342335860614, 2.368334892170875],
        'orientation': [[0.10015040719669162, -0.19996970233545233, 0.3000851103759138], [0.5000651724568255, 0.10005521573860493, -0.39947243752978673], [-0.2999020611319886, 0.6000268984517144, 0.1998439402098586], [0.0501678015182969, 0.0199700660259339, -0.6998028937369312]],
        'stress': [[16.78176803380107, -11.600561820454358, -5.181206213346584, 4.2126728727309075, -1.618736516539735, 9.462732789458375], [21.44292411792435, -16.00254499244605, -5.4403791254783105, 4.510832506646345, -2.1956740690201872, -1.1466226095079017], [19.44619379597271, -12.52150380809117, -6.924689987881431, -4.431121125516974, 1.5418716685025768, 6.84409764042936], [21.709997680834295, -20.4521477899146, -1.2578498909196938, -3.205156850038745, 0.5505147333936489, -4.166695838321961]],
        'elastic_strain': [[0.00021816298443941358, -0.00015080730366590704, -6.7355680773506e-05, 5.47647473455018e-05, -2.1043574715016556e-05, 0.00012301552626295888], [0.0002787580135330166, -0.00020803308490179864, -7.0724928631218e-05, 5.8640822586402484e-05, -2.8543762897262437e-05, -1.4906093923602722e-05], [0.00025280051934764493, -0.00016277954950518554, -9.002096984245894e-05, -5.7604574631720665e-05, 2.00443316905335e-05, 8.897326932558168e-05], [0.00028222996985084584, -0.0002658779212688898, -1.6352048581956023e-05, -4.166703905050368e-05, 7.156691534117435e-06, -5.416704589818549e-05]],
    },
}  # fmt: skip


def v3_case(step: int, prev: dict[str, Any] | None = None) -> dict[str, Any]:
    """Four fixed orientations, the benchmark's rate with spin, dt = 1 per step."""
    q = torch.tensor([[0.1, -0.2, 0.3], [0.5, 0.1, -0.4], [-0.3, 0.6, 0.2], [0.05, 0.02, -0.7]],
                     dtype=torch.float64)  # fmt: skip
    x = step_inputs(4)
    x["orientation~1"] = MRP(q)
    t = torch.full((4,), float(step), dtype=torch.float64)
    x["t"], x["t~1"] = Scalar(t), Scalar(t - 1.0)
    if prev is not None:
        for name in ("elastic_strain", "slip_hardening", "orientation"):
            x[f"{name}~1"] = prev[name]
    return x


def test_taylor_matches_v3_over_two_steps(taylor: Any) -> None:
    """Same numbers as NEML2 v3 (Newton stops at 1e-8 relative: agreement to ~1e-12)."""
    prev = None
    for step, ref in V3_TWO_STEPS.items():
        with torch.no_grad():
            y = taylor.value(v3_case(step, prev))
        for name, values in ref.items():
            got, want = y[name].data, torch.tensor(values, dtype=torch.float64)
            err = float((got - want).abs().max())
            assert err <= 1e-12 + 1e-10 * float(want.abs().max()), (step, name, err)
        prev = y


def _central_difference(fn: Any, x: torch.Tensor, eps: float) -> torch.Tensor:
    """``d fn / d x`` per batch point, ``(B, *out_base, *in_base)``, by central differences."""
    base = x.shape[1:]
    cols = []
    for k in range(base.numel()):
        e = torch.zeros(base.numel(), dtype=x.dtype)
        e[k] = eps
        e = e.reshape(base)
        cols.append((fn(x + e) - fn(x - e)) / (2 * eps))
    out = torch.stack(cols, dim=-1)
    return out.reshape(*out.shape[:-1], *base) if len(base) else out[..., 0]


@pytest.mark.parametrize(("out", "inp", "eps"), [
    ("elastic_strain", "deformation_rate", 1e-7),
    ("slip_hardening", "deformation_rate", 1e-7),
    ("orientation", "orientation~1", 1e-6),
    ("elastic_strain", "vorticity", 1e-7),
])  # fmt: skip
def test_implicit_jacobian_matches_finite_differences(out: str, inp: str, eps: float) -> None:
    """IFT Jacobian of the implicit update against central differences of re-solved steps."""
    model = neml2.load_model(TAYLOR, "model")
    model.solver.abs_tol, model.solver.rel_tol = 1e-14, 1e-13  # FD needs tight re-solves
    x = step_inputs(3, seed=5)
    _, J = model.jacobian(x)
    got = J[out][inp]
    got = got if isinstance(got, torch.Tensor) else got.data

    def value(v: torch.Tensor) -> torch.Tensor:
        y = dict(x)
        y[inp] = type(x[inp])(v)
        with torch.no_grad():
            result: torch.Tensor = model.value(y)[out].data
        return result

    ref = _central_difference(value, x[inp].data.clone(), eps)
    scale = float(ref.abs().max())
    assert float((got - ref).abs().max()) <= 1e-6 * scale, (out, inp, got, ref)


def test_parameter_derivatives_match_finite_differences() -> None:
    """``param_jacobian`` (d outputs / d parameters through the implicit solve) against FD."""
    model = neml2.load_model(TAYLOR, "model")
    model.solver.abs_tol, model.solver.rel_tol = 1e-14, 1e-13
    x = step_inputs(3, seed=9)
    names = ["implicit_rate.slip_rule.n", "implicit_rate.voce_hardening.initial_slope",
             "implicit_rate.slip_strength.constant_strength"]  # fmt: skip
    _, J = model.param_jacobian(x, names)
    for name in names:
        p0 = model.get_parameter(name).item()
        h = 1e-6 * max(1.0, abs(p0))
        with torch.no_grad():
            model.set_parameter(name, p0 + h)
            up = model.value(x)
            model.set_parameter(name, p0 - h)
            down = model.value(x)
            model.set_parameter(name, p0)
        for out in ("elastic_strain", "slip_hardening", "orientation"):
            ref = (up[out].data - down[out].data) / (2 * h)
            got = J[out][name].reshape(ref.shape)
            # the re-solves stop at 1e-13 relative: that much of |y| is noise in each difference
            noise = 1e-13 * float(up[out].data.abs().max()) / h
            scale = float(ref.abs().max())
            assert float((got - ref).abs().max()) <= 1e-6 * scale + noise, (name, out)
