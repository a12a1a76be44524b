r"""The pyrolysis example (Avrami-Erofeev kinetics, Arrhenius rate, constant heating rates) runs
with ``neml2-run --csv --plot`` and its CSV history matches independent solutions.

* An independent backward-Euler integration in numpy/scipy: per step, with
  :math:`L = -\ln(1 - a)`, the residual :math:`a - a_n - \Delta t\,k(T_{n+1})(1 - a)L^n = 0`
  becomes :math:`e^{L - L_n} - 1 - \Delta t\,k L^n = 0`, solved by ``brentq`` (1e-8);
* the exact solution :math:`a = 1 - e^{-L}`,
  :math:`L = (L_0^{1-n} + (1 - n)\int_0^t k\,\mathrm{d}s)^{1/(1-n)}` (the integral by a fine
  trapezoidal rule), within the first-order time-step error of the 240-step run (0.03).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from scipy.optimize import brentq  # type: ignore[import-untyped]

from neml2.cli.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "chemical_reactions" / "pyrolysis_avrami.i"


def _params() -> dict[str, float]:
    out = {}
    for line in EXAMPLE.read_text().splitlines():
        key, sep, val = line.partition(" = ")
        if sep and not line.startswith((" ", "#", "[")):
            out[key] = float(val)
    return out


def _columns(path: Path, batch: int) -> dict[str, np.ndarray]:
    with path.open() as fh:
        rows = [r for r in csv.DictReader(fh) if int(r["batch"]) == batch]
    return {k: np.array([float(r[k] or "nan") for r in rows]) for k in rows[0]}


def _backward_euler(t: np.ndarray, k: np.ndarray, n: float, a0: float) -> np.ndarray:
    """Backward Euler in L = -ln(1 - a): with x = L - L_n, expm1(x) = dt k (L_n + x)^n."""
    big_l = [-np.log1p(-a0)]
    for i in range(1, len(t)):
        ln, c = big_l[-1], (t[i] - t[i - 1]) * k[i]

        def g(x: float, ln: float = ln, c: float = c) -> float:
            return float(np.expm1(x) - c * (ln + x) ** n)

        hi = 1.0
        while g(hi) <= 0.0:
            hi *= 2.0
        big_l.append(ln + brentq(g, 0.0, hi, xtol=1e-15, rtol=1e-14))
    return np.asarray(-np.expm1(-np.array(big_l)))


def _exact(t: np.ndarray, p: dict[str, float], beta: float) -> np.ndarray:
    s = np.linspace(0.0, t[-1], 200 * (len(t) - 1) + 1)
    ks = p["A"] * np.exp(-p["Q"] / (p["R"] * (p["T0"] + beta * s)))
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (ks[1:] + ks[:-1]) * np.diff(s))])[::200]
    n = p["n"]
    l0 = -np.log1p(-p["a0"])
    big_l = (l0 ** (1.0 - n) + (1.0 - n) * integral) ** (1.0 / (1.0 - n))
    return np.asarray(-np.expm1(-big_l))


def test_pyrolysis_csv_and_plot(tmp_path: Path) -> None:
    table, png = tmp_path / "pyrolysis.csv", tmp_path / "pyrolysis.png"
    args = [str(EXAMPLE), "driver", "--csv", str(table), "--plot", str(png)]
    assert main([*args, "--plot-x", "t", "--plot-y", "a,a_rate"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    p = _params()
    for b, beta in enumerate((p["beta1"], p["beta2"])):
        c = _columns(table, b)
        t, a, temp = c["t"], c["a"], c["T"]
        assert len(t) == int(p["nsteps"]) + 1
        np.testing.assert_allclose(temp, p["T0"] + beta * t, rtol=1e-14)
        k = p["A"] * np.exp(-p["Q"] / (p["R"] * temp))
        np.testing.assert_allclose(a, _backward_euler(t, k, p["n"], p["a0"]), rtol=0, atol=1e-8)
        la = -np.log1p(-a[1:])
        rate = k[1:] * (1.0 - a[1:]) * la ** p["n"]
        np.testing.assert_allclose(c["a_rate"][1:], rate, rtol=1e-8, atol=1e-14)
        exact = _exact(t, p, beta)
        err = np.abs(a - exact).max()
        print(f"batch {b}: max |a - exact| = {err:.3e}")
        assert err < 0.03, err
        assert a[-1] > 0.999 and np.all(np.diff(a) >= 0)  # complete, monotonic conversion
