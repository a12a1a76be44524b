"""Loading histories of the traction-separation examples against hand-computed values.

The examples under ``examples/traction_separation/`` compose VecComponents, MacaulaySplit,
ScalarPNorm, ModeMixity, CamanhoDavilaCriticalSeparation, a full-separation criterion and the
traction law; ``TransientDriver`` carries the damage between steps. Checked: spot values worked
out by hand (mode I softening, unloading to the origin along the damaged secant, penetration,
pure shear, a mixed mode with the BK criterion) and whole histories against an independent numpy
replica of the laws. The composed models' derivatives are checked by the harness too.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_input
from neml2.models.testing import ModelCase, case_id, check_model

EXAMPLES = Path(__file__).resolve().parents[6] / "examples" / "traction_separation"


def _params(name: str) -> dict[str, float]:
    pat = re.compile(r"^(\w+)\s*=\s*([-+0-9.eE]+)\s*$", re.MULTILINE)
    return {k: float(v) for k, v in pat.findall((EXAMPLES / name).read_text())}


def _run(name: str, dtype: torch.dtype, **over: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Prescribed jumps ``(n+1, 3)`` and recorded outputs (steps 1..n) of an example."""
    f = load_input(EXAMPLES / name, additional_args=[f"{k}:={v}" for k, v in over.items()],
                   dtype=dtype)  # fmt: skip
    driver = narrow(f.get_driver("driver"), TransientDriver)
    driver.run()
    res = driver.result()
    n = int(f.get_tensor("times").data.shape[0]) - 1
    outs = list(f.get_model("model").output_spec)
    hist = {o: np.stack([res[f"output.{k}.{o}"].detach().double().numpy() for k in range(1, n + 1)])
            for o in outs}  # fmt: skip
    return f.get_tensor("jumps").data.double().numpy(), hist


def _bilinear_replica(
    p: dict[str, float], jumps: np.ndarray, law: str, dtype: torch.dtype
) -> dict[str, np.ndarray]:
    """Independent numpy replica of the bilinear composition, step by step.

    ``eps`` regularizes the norms and the criteria as in the models: the machine epsilon of the
    dtype the model runs in.
    """
    eps = float(torch.finfo(dtype).eps)
    k = p["K"]
    dn0, ds0 = p["N"] / k, p["S"] / k
    d_old, tr, dm_ = 0.0, [], []
    for jn, j1, j2 in jumps[1:]:
        dn, pen = max(jn, 0.0), min(jn, 0.0)
        dm = math.sqrt(dn**2 + j1**2 + j2**2 + eps)
        ds = math.sqrt(j1**2 + j2**2 + eps)
        beta = ds / dn if dn > 0 else 0.0
        if dn > 0:
            dc = dn0 * ds0 * math.sqrt(1 + beta**2) / math.sqrt(ds0**2 + beta**2 * dn0**2 + eps)
            if law == "bk":
                g = p["GIc"] + (p["GIIc"] - p["GIc"]) * (beta**2 / (1 + beta**2) + eps) ** p["eta"]
                df = 2 / (k * dc) * g
            else:
                bracket = (1 / p["GIc"]) ** p["eta"] + (beta**2 / p["GIIc"] + eps) ** p["eta"]
                df = 2 * (1 + beta**2) / (k * dc) * bracket ** (-1 / p["eta"])
        else:
            dc, df = ds0, 2 * p["GIIc"] / p["S"]
        dstar = 0.0 if dm < dc else (df * (dm - dc) / (dm * (df - dc)) if dm < df else 1.0)
        d_old = max(dstar, d_old)
        tr.append(k * (1 - d_old) * np.array([dn, j1, j2]) + np.array([k * pen, 0, 0]))
        dm_.append(d_old)
    return {"traction": np.array(tr), "damage": np.array(dm_)}


def _salehani_replica(p: dict[str, float], jumps: np.ndarray) -> dict[str, np.ndarray]:
    d_old, tr, dmg = 0.0, [], []
    for jn, j1, j2 in jumps[1:]:
        dn, pen = max(jn, 0.0), min(jn, 0.0)
        bn, b1, b2 = dn / p["dn0"], j1 / (math.sqrt(2) * p["dt0"]), j2 / (math.sqrt(2) * p["dt0"])
        d_old = max(1 - math.exp(-(bn + b1**2 + b2**2)), d_old)
        c = math.sqrt(2 * math.e) * p["Tt"]
        f = np.array([math.e * p["Tn"] * bn, c * b1, c * b2])
        tr.append((1 - d_old) * f + np.array([p["Kpen"] * pen, 0, 0]))
        dmg.append(d_old)
    return {"traction": np.array(tr), "damage": np.array(dmg)}


def _close(got: dict[str, np.ndarray], want: dict[str, np.ndarray], dtype: torch.dtype) -> None:
    rtol, atol = (1e-10, 1e-10) if dtype == torch.float64 else (2e-5, 2e-5)
    for k, w in want.items():
        np.testing.assert_allclose(got[k], w, rtol=rtol, atol=atol * max(1.0, np.abs(w).max()))


def _tol(dtype: torch.dtype) -> float:
    """Spot-check tolerance; float32 also sees the sqrt(eps) = 3.5e-4 regularization of the norms
    amplified by the softening slope."""
    return 1e-9 if dtype == torch.float64 else 2e-3


def test_mode_one_softening_unloading_penetration(dtype: torch.dtype) -> None:
    """Mode I, K = 1000, N = 10 (delta_c = 0.01), G_Ic = 0.1 (delta_f = 2 G_Ic/(K delta_c) = 0.02).

    Peak opening 0.015 at step 20: d = 0.02 (0.015 - 0.01) / (0.015 (0.02 - 0.01)) = 2/3,
    T_n = 1000 (1/3) 0.015 = 5. Unloading (step 30, opening 0.0075): d stays 2/3,
    T_n = 1000 (1/3) 0.0075 = 2.5; origin at step 40: T = 0. Penetration at step 60 (jump
    -0.2 * 0.015 = -0.003): undamaged penalty, T_n = 1000 (-0.003) = -3.
    """
    for name in ("bilinear_bk.i", "bilinear_power_law.i"):
        _, h = _run(name, dtype)
        t, d = h["traction"][:, 0], h["damage"]
        tol = _tol(dtype)
        assert t[19] == pytest.approx(5.0, rel=tol) and d[19] == pytest.approx(2 / 3, rel=tol)
        assert t[29] == pytest.approx(2.5, rel=tol) and d[29] == pytest.approx(2 / 3, rel=tol)
        assert abs(t[39]) < tol and d[39] == pytest.approx(2 / 3, rel=tol)
        assert t[59] == pytest.approx(-3.0, rel=tol)
        # elastic until the onset (opening 0.01 at step 13.33): T = K delta, no damage
        assert t[12] == pytest.approx(1000 * 0.015 * 13 / 20, rel=tol) and d[12] == 0
        # secant unloading: traction proportional to the opening, damage frozen at its maximum
        sl = slice(20, 40)
        np.testing.assert_allclose(d[sl], 2 / 3, rtol=tol)
        np.testing.assert_allclose(t[sl], 1000 / 3 * 0.015 * (40 - np.arange(21, 41)) / 20,
                                   rtol=tol, atol=tol)  # fmt: skip


def test_mode_one_full_separation(dtype: torch.dtype) -> None:
    """Opening to 0.03 > delta_f = 0.02: d = 1 from opening 0.02 on (step 14 of 20), T = 0."""
    _, h = _run("bilinear_bk.i", dtype, jump_max=0.03)
    assert np.all(h["damage"][14:] == 1.0)
    assert np.abs(h["traction"][14:40]).max() < _tol(dtype)
    assert h["traction"][59, 0] == pytest.approx(1000 * -0.2 * 0.03, rel=_tol(dtype))


def test_pure_shear(dtype: torch.dtype) -> None:
    """Pure shear (closed interface): delta_c = S/K = 0.02, delta_f = 2 G_IIc / S = 0.04.

    Shear 0.03 at step 20: d = 0.04 (0.03 - 0.02) / (0.03 (0.04 - 0.02)) = 2/3,
    T_s1 = 1000 (1/3) 0.03 = 10; half-way back (step 30): T_s1 = 5.
    """
    _, h = _run("bilinear_bk.i", dtype, dir_n=0.0, dir_s1=1.0, jump_max=0.03)
    tol = _tol(dtype)
    assert h["traction"][19, 1] == pytest.approx(10.0, rel=tol)
    assert h["damage"][19] == pytest.approx(2 / 3, rel=tol)
    assert h["traction"][29, 1] == pytest.approx(5.0, rel=tol)
    assert np.abs(h["traction"][:, [0, 2]]).max() < tol


def test_mixed_mode_bk(dtype: torch.dtype) -> None:
    """Opening direction (1, 1, 0), i.e. beta = 1, delta_n0 = 0.01, delta_s0 = 0.02:

    delta_c = 0.01 * 0.02 * sqrt(2) / sqrt(0.02^2 + 0.01^2) = 0.0126491...,
    BK with eta = 2: G_c = 0.1 + 0.3 (1/2)^2 = 0.175, delta_f = 2 G_c / (K delta_c) = 0.0276699...
    At step 20 the effective opening is 0.02 sqrt(2) = 0.0282843 > delta_f: full damage;
    with jump_max = 0.012 the peak opening 0.012 sqrt(2) = 0.0169706 gives
    d = delta_f (0.0169706 - delta_c) / (0.0169706 (delta_f - delta_c)).
    """
    dc = 0.01 * 0.02 * math.sqrt(2) / math.sqrt(0.02**2 + 0.01**2)
    df = 2 * (0.1 + 0.3 * 0.25) / (1000 * dc)
    dm = 0.012 * math.sqrt(2)
    d = df * (dm - dc) / (dm * (df - dc))
    _, h = _run("bilinear_bk.i", dtype, dir_s1=1.0, jump_max=0.012)
    tol = _tol(dtype) * 10
    assert h["damage"][19] == pytest.approx(d, rel=tol)
    np.testing.assert_allclose(h["traction"][19], 1000 * (1 - d) * np.array([0.012, 0.012, 0]),
                               rtol=tol)  # fmt: skip
    _, h = _run("bilinear_bk.i", dtype, dir_s1=1.0, jump_max=0.02)
    assert h["damage"][19] == 1.0


PATHS = [dict(dir_n=1.0, dir_s1=0.0, dir_s2=0.0), dict(dir_n=0.0, dir_s1=0.6, dir_s2=-0.8),
         dict(dir_n=0.8, dir_s1=0.3, dir_s2=0.5), dict(dir_n=0.4, dir_s1=-1.0, dir_s2=0.2)]  # fmt: skip


@pytest.mark.parametrize("path", PATHS, ids=["mode-I", "shear", "mixed-a", "mixed-b"])
@pytest.mark.parametrize("law", ["bk", "power_law"])
def test_bilinear_history(law: str, path: dict[str, float], dtype: torch.dtype) -> None:
    for jump_max in (0.012, 0.025):
        jumps, h = _run(f"bilinear_{law}.i", dtype, jump_max=jump_max, **path)
        _close(h, _bilinear_replica(_params(f"bilinear_{law}.i"), jumps, law, dtype), dtype)


@pytest.mark.parametrize("path", PATHS, ids=["mode-I", "shear", "mixed-a", "mixed-b"])
def test_salehani_irani_history(path: dict[str, float], dtype: torch.dtype) -> None:
    jumps, h = _run("salehani_irani.i", dtype, jump_max=0.004, **path)
    _close(h, _salehani_replica(_params("salehani_irani.i"), jumps), dtype)
    # irreversibility: the damage never decreases; unloading is secant (T / F constant)
    assert np.all(np.diff(h["damage"]) >= 0)


def test_orthotropic_history(dtype: torch.dtype) -> None:
    p = _params("orthotropic_linear.i")
    jumps, h = _run("orthotropic_linear.i", dtype)
    j = jumps[1:]
    want = np.stack([p["Kn"] * np.maximum(j[:, 0], 0) + p["Kpen"] * np.minimum(j[:, 0], 0),
                     p["Kt"] * j[:, 1], p["Kt"] * j[:, 2]], axis=-1)  # fmt: skip
    _close(h, {"traction": want}, dtype)


# derivatives of the composed laws (away from the branch switches)
RNG = np.random.default_rng(5)
JUMP = np.array([[0.012, 0.004, -0.003], [0.006, -0.01, 0.008], [-0.004, 0.015, 0.01],
                 [0.02, 0.001, 0.002]])  # fmt: skip
CASES = [
    ModelCase(f"composed-{name.removesuffix('.i')}", (EXAMPLES / name).read_text(),
              {"displacement_jump": JUMP, "damage~1": np.array([0.05, 0.7, 0.2, 0.99])},
              None, fd_rtol=1e-5)
    for name in ("bilinear_bk.i", "bilinear_power_law.i", "salehani_irani.i")
] + [ModelCase("composed-orthotropic", (EXAMPLES / "orthotropic_linear.i").read_text(),
               {"displacement_jump": JUMP}, None)]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_composed_derivatives(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    if dtype != torch.float64:
        pytest.skip("derivative checks run in float64 (values are covered above)")
    check_model(case, dtype=dtype, device=device)
