"""Capillary pressure curves (van Genuchten, Brooks-Corey) with the optional log extension:
values against numpy formulas, derivatives (harness), the published closed-form curves, C¹
continuity at the transition, monotonicity and construction checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model


def _hit(type_: str, options: str = "") -> str:
    """``[Models/model]`` of type ``type_`` with ``options`` as its body."""
    return f"[Models]\n  [model]\n    type = {type_}\n    {options}\n  []\n[]\n"


RNG = np.random.default_rng(31)
N = 7
LN10 = np.log(10.0)


# ---- independent numpy references (textbook forms and their hand derivatives)
def vg(S: Any, a: Any, m: Any) -> Any:
    return a * (S ** (-1.0 / m) - 1.0) ** (1.0 - m)


def vg_slope(S: Any, a: Any, m: Any) -> Any:
    """dPc/dS of a (S^(-1/m) - 1)^(1 - m)."""
    return a * (1.0 - m) * (S ** (-1.0 / m) - 1.0) ** (-m) * (-1.0 / m) * S ** (-1.0 / m - 1.0)


def bc(S: Any, pt: Any, lam: Any) -> Any:
    return pt * S ** (-1.0 / lam)


def bc_slope(S: Any, pt: Any, lam: Any) -> Any:
    return -pt / lam * S ** (-1.0 / lam - 1.0)


def log_extended(S: Any, sp: float, f: Any, df: Any) -> Any:
    """Curve ``f`` above ``sp``; below, log10 of it continued linearly with matching slope."""
    f0, d0 = f(sp), df(sp)
    ext = 10.0 ** (np.log10(f0) + d0 / (f0 * LN10) * (S - sp))
    return np.where(sp > S, ext, f(np.maximum(S, sp)))


S_IN = RNG.uniform(0.05, 0.95, N)
S_LOG = np.array([0.02, 0.1, 0.2, 0.27, 0.33, 0.6, 0.9])  # both sides of Sp = 0.3
SP = 0.3


def _vg_hit(a: str, m: str, ext: str = "") -> str:
    return _hit("VanGenuchtenCapillaryPressure", f"a = {a}\n    m = {m}\n    {ext}")


def _bc_hit(pt: str, lam: str, ext: str = "") -> str:
    return _hit("BrooksCoreyCapillaryPressure",
                f"threshold_pressure = {pt}\n    exponent = {lam}\n    {ext}")  # fmt: skip


EXT = f"log_extension = true\n    transition_saturation = {SP}"
A1 = RNG.uniform(1.0, 3.0, (1,))
M7 = RNG.uniform(0.3, 0.7, N)
CASES = [
    ModelCase("porous-vg", _vg_hit("2.0", "0.4"), {"effective_saturation": S_IN},
              lambda x: {"capillary_pressure": vg(x["effective_saturation"], 2.0, 0.4)}),
    ModelCase("porous-vg-promoted", _vg_hit("'a'", "'m'"),
              {"effective_saturation": S_IN, "a": A1, "m": M7},
              lambda x: {"capillary_pressure": vg(x["effective_saturation"], x["a"], x["m"])}),
    ModelCase("porous-vg-log", _vg_hit("2.0", "0.4", EXT), {"effective_saturation": S_LOG},
              lambda x: {"capillary_pressure": log_extended(
                  x["effective_saturation"], SP, lambda s: vg(s, 2.0, 0.4),
                  lambda s: vg_slope(s, 2.0, 0.4))}),
    ModelCase("porous-vg-log-promoted", _vg_hit("'a'", "'m'", EXT),
              {"effective_saturation": S_LOG, "a": A1, "m": M7},
              lambda x: {"capillary_pressure": log_extended(
                  x["effective_saturation"], SP, lambda s: vg(s, x["a"], x["m"]),
                  lambda s: vg_slope(s, x["a"], x["m"]))}),
    ModelCase("porous-bc", _bc_hit("1.5", "2.0"), {"effective_saturation": S_IN},
              lambda x: {"capillary_pressure": bc(x["effective_saturation"], 1.5, 2.0)}),
    ModelCase("porous-bc-promoted", _bc_hit("'Pt'", "'lam'"),
              {"effective_saturation": S_IN, "Pt": A1, "lam": RNG.uniform(0.5, 3.0, N)},
              lambda x: {"capillary_pressure": bc(x["effective_saturation"], x["Pt"], x["lam"])}),
    ModelCase("porous-bc-log", _bc_hit("1.5", "2.0", EXT), {"effective_saturation": S_LOG},
              lambda x: {"capillary_pressure": log_extended(
                  x["effective_saturation"], SP, lambda s: bc(s, 1.5, 2.0),
                  lambda s: bc_slope(s, 1.5, 2.0))}),
    ModelCase("porous-bc-log-promoted", _bc_hit("'Pt'", "'lam'", EXT),
              {"effective_saturation": S_LOG, "Pt": A1, "lam": RNG.uniform(0.5, 3.0, N)},
              lambda x: {"capillary_pressure": log_extended(
                  x["effective_saturation"], SP, lambda s: bc(s, x["Pt"], x["lam"]),
                  lambda s: bc_slope(s, x["Pt"], x["lam"]))}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_porous_capillary_pressure(case: ModelCase, dtype: torch.dtype, device: Any) -> None:
    check_model(case, dtype=dtype, device=device)


def _pc(hit: str, S: np.ndarray, model: str = "model") -> tuple[np.ndarray, np.ndarray]:
    """(Pc, dPc/dS) of ``model`` in float64."""
    m = load_string(hit, dtype=torch.float64).get_model(model)
    out, J = m.jacobian({"effective_saturation": torch.tensor(S, dtype=torch.float64)})
    d = J["capillary_pressure"]["effective_saturation"].data
    return out["capillary_pressure"].data.detach().numpy(), d.detach().numpy()


# ---- verification against the published closed forms
# van Genuchten (1980): theta(h) = theta_r + (theta_s - theta_r) / (1 + (alpha h)^n)^m,
# m = 1 - 1/n; Carsel & Parrish (1988) loam: theta_r = 0.078, theta_s = 0.43,
# alpha = 3.6 1/m, n = 1.56. v3's a (S^(-1/m) - 1)^(1 - m) is the inverse with a = 1/alpha
# (1 - m = 1/n), fed by EffectiveSaturation with phi_max = theta_s, Sr = theta_r / theta_s.
TR, TS, ALPHA, NVG = 0.078, 0.43, 3.6, 1.56
VG_RETENTION = f"""
[Models]
  [sat]
    type = EffectiveSaturation
    fluid_fraction = theta
    residual_saturation = {TR / TS!r}
    max_fraction = {TS!r}
  []
  [pc]
    type = VanGenuchtenCapillaryPressure
    a = {1.0 / ALPHA!r}
    m = {1.0 - 1.0 / NVG!r}
    capillary_pressure = h
  []
  [model]
    type = ComposedModel
    models = 'sat pc'
  []
[]
"""


def test_van_genuchten_published_retention_curve() -> None:
    h = np.logspace(-2, 3, 41)  # suction head [m]
    mm = 1.0 - 1.0 / NVG
    theta = TR + (TS - TR) / (1.0 + (ALPHA * h) ** NVG) ** mm
    m = load_string(VG_RETENTION, dtype=torch.float64).get_model("model")
    got = m.value({"theta": torch.tensor(theta)})["h"].data.detach().numpy()
    np.testing.assert_allclose(got, h, rtol=1e-8)  # (1 + (alpha h)^n)^m loses digits near h=0
    # the parameter mapping: a = 1/alpha and 1 - m = 1/n
    pc = load_string(VG_RETENTION, dtype=torch.float64).get_model("pc")
    Se = RNG.uniform(0.05, 0.95, 9)
    got = pc.value({"effective_saturation": torch.tensor(Se)})["h"].data.detach().numpy()
    ref = (1.0 / ALPHA) * (Se ** (-1.0 / mm) - 1.0) ** (1.0 / NVG)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_brooks_corey_published_curve() -> None:
    # Brooks & Corey (1964): Se = (Pt / Pc)^lambda for Pc >= Pt
    pt, lam = 0.25, 0.6
    Pc = pt * np.logspace(0, 3, 31)
    Se = (pt / Pc) ** lam
    got, _ = _pc(_bc_hit(repr(pt), repr(lam)), Se)
    np.testing.assert_allclose(got, Pc, rtol=1e-12)


@pytest.mark.parametrize("kind", ["vg", "bc"])
def test_log_extension_is_c1_at_transition(kind: str) -> None:
    f: Callable[[Any], Any]
    df: Callable[[Any], Any]
    if kind == "vg":
        hit = _vg_hit("2.0", "0.4", EXT)
        f, df = (lambda s: vg(s, 2.0, 0.4)), (lambda s: vg_slope(s, 2.0, 0.4))
    else:
        hit = _bc_hit("1.5", "2.0", EXT)
        f, df = (lambda s: bc(s, 1.5, 2.0)), (lambda s: bc_slope(s, 1.5, 2.0))
    p0, d0 = f(SP), df(SP)
    errs_l, errs_r = [], []
    for delta in (1e-3, 1e-4, 1e-5):
        S = np.array([SP - 2 * delta, SP - delta, SP, SP + delta, SP + 2 * delta])
        P, _ = _pc(hit, S)
        assert P[2] == pytest.approx(p0, rel=1e-13)
        assert abs(P[1] - p0) < 2 * abs(d0) * delta and abs(P[3] - p0) < 2 * abs(d0) * delta
        # second-order one-sided slopes from each side
        left = (3 * P[2] - 4 * P[1] + P[0]) / (2 * delta)
        right = (-3 * P[2] + 4 * P[3] - P[4]) / (2 * delta)
        errs_l.append(abs(left / d0 - 1))
        errs_r.append(abs(right / d0 - 1))
    assert max(errs_l[-1], errs_r[-1]) < 1e-6
    order_l = np.log10(errs_l[0] / errs_l[1])
    order_r = np.log10(errs_r[0] / errs_r[1])
    assert order_l > 1.8 and order_r > 1.8  # one-sided second-order differences: O(delta^2)
    # the analytic Jacobian from both sides agrees with the curve slope
    _, J = _pc(hit, np.array([SP - 1e-12, SP, SP + 1e-12]))
    np.testing.assert_allclose(J, d0, rtol=1e-9)
    # log10 Pc is exactly linear below Sp
    S = np.linspace(-0.2, SP - 0.01, 9)
    P, _ = _pc(hit, S)
    lp = np.log10(P)
    np.testing.assert_allclose(np.diff(lp) / np.diff(S), d0 / (p0 * LN10), rtol=1e-9)


@pytest.mark.parametrize("hit", [_vg_hit("2.0", "0.4"), _vg_hit("2.0", "0.4", EXT),
                                 _bc_hit("1.5", "2.0"), _bc_hit("1.5", "2.0", EXT)])  # fmt: skip
def test_capillary_pressure_decreases_with_saturation(hit: str) -> None:
    lo = -0.5 if "log_extension" in hit else 1e-3
    S = np.linspace(lo, 0.999, 400)
    P, J = _pc(hit, S)
    assert np.all(np.isfinite(P)) and np.all(P > 0)
    assert np.all(np.diff(P) < 0) and np.all(J < 0)


def test_van_genuchten_cap_at_full_saturation() -> None:
    # v3: S is capped at 1 - eps in value only; the slope is that at 1 - eps (v3's numbers)
    eps = np.finfo(np.float64).eps
    P, J = _pc(_vg_hit("2.0", "0.4"), np.array([1.0 - eps, 1.0, 1.2]))
    np.testing.assert_allclose(P, P[0], rtol=0)
    np.testing.assert_allclose(J, J[0], rtol=0)
    assert 0 < P[0] < 1e-8


@pytest.mark.parametrize(
    ("hit", "option"),
    [
        (_vg_hit("0", "0.4"), "a"),
        (_vg_hit("-1", "0.4"), "a"),
        (_vg_hit("2", "0"), "m"),
        (_vg_hit("2", "1"), "m"),
        (_vg_hit("2", "-0.5"), "m"),
        (_bc_hit("0", "2"), "threshold_pressure"),
        (_bc_hit("1", "0"), "exponent"),
        (_bc_hit("1", "-2"), "exponent"),
        (_vg_hit("2", "0.4", "log_extension = true"), "transition_saturation"),
        (_vg_hit("2", "0.4", EXT.replace(str(SP), "1")), "transition_saturation"),
        (_vg_hit("2", "0.4", EXT.replace(str(SP), "-0.1")), "transition_saturation"),
        (_vg_hit("2", "0.4", "transition_saturation = 1.5"), "transition_saturation"),
        (_bc_hit("1", "2", "log_extension = true"), "transition_saturation"),
        (_bc_hit("1", "2", EXT.replace(str(SP), "1.2")), "transition_saturation"),
    ],
)
def test_capillary_pressure_bad_input(hit: str, option: str) -> None:
    f = load_string(hit)
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        f.get_model("model")


def test_brooks_corey_transition_at_one_is_accepted() -> None:
    # Sp = 1 is meaningful for Brooks-Corey (Pc(1) = Pt): the whole curve is log-linear
    P, _ = _pc(_bc_hit("1.5", "2.0", EXT.replace(str(SP), "1")), np.array([0.5, 1.0]))
    np.testing.assert_allclose(P, [1.5 * np.exp(0.5 / 2.0), 1.5], rtol=1e-12)
