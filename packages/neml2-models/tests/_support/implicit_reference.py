r"""Independent backward-Euler integrators (numpy residuals, ``scipy.optimize.fsolve``) for the
viscoplastic examples under a prescribed strain history (Mandel storage).

Each step solves :math:`r(y_k) = 0` for the state :math:`y_k` from the previous state, with the
rate-form elasticity residual :math:`\sigma_k - \sigma_{k-1} - C:(\Delta\varepsilon -
\Delta t\,\dot\gamma N)` and :math:`\dot\gamma = \langle f/\eta\rangle^n` (Perzyna).

* :func:`chaboche`: :math:`f = \sqrt{2/3}(\sigma_{vm}(\sigma - X_1 - X_2) - s_y - h)`,
  :math:`h = R(1 - e^{-d\bar\varepsilon_p})`, :math:`N = \partial f/\partial\sigma`,
  :math:`\dot{\bar\varepsilon}_p = \sqrt{2/3}\dot\gamma`,
  :math:`\dot X_i = (\tfrac23 C_i N - g_i X_i)\dot\gamma - A_i |X_i|^{a_i - 1} X_i`.
* :func:`gtn`: :math:`f = (\sigma_{vm}/s_y)^2 + 2 q_1\phi\cosh(q_2 I_1/(2 s_y)) - (1 + q_3\phi^2)`,
  :math:`N = 3\,\mathrm{dev}\,\sigma/s_y^2 + (q_1 q_2\phi/s_y)\sinh(q_2 I_1/(2 s_y))\,I`,
  :math:`\dot\phi = (1 - \phi)\,\mathrm{tr}(\dot\gamma N)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import fsolve  # type: ignore[import-untyped]

I6 = np.array([1.0, 1, 1, 0, 0, 0])
Residual = Callable[[np.ndarray, np.ndarray, np.ndarray, float], np.ndarray]


def _dev(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x - x[:3].sum() / 3 * I6
    return out


def _stiffness(E: float, nu: float) -> Callable[[np.ndarray], np.ndarray]:
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    return lambda e: lam * e[:3].sum() * I6 + 2 * mu * e


def integrate(
    residual: Residual, times: np.ndarray, strain: np.ndarray, y0: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """States ``(N, n)`` for one batch entry; ``residual(y, y_old, d_strain, dt)``; the solve
    works on ``y / scale`` (residual ``r / scale``) and must reach ``max |r / scale| < 1e-9``."""
    out = np.zeros((times.shape[0], y0.shape[0]))
    out[0] = y0
    for k in range(1, times.shape[0]):
        de, dt, old = strain[k] - strain[k - 1], float(times[k] - times[k - 1]), out[k - 1]

        def r(z: np.ndarray, de: np.ndarray = de, dt: float = dt, old: np.ndarray = old) -> Any:
            return residual(z * scale, old, de, dt) / scale

        z, _, _, msg = fsolve(r, old / scale, xtol=1e-14, full_output=True)
        err = float(np.abs(r(z)).max())
        assert err < 1e-9, f"step {k}: {msg} (max |r / scale| = {err})"
        out[k] = z * scale
    return out


def chaboche(p: dict[str, float]) -> Residual:
    """Residual on ``y = [stress(6), ep, X1(6), X2(6)]``."""
    C = _stiffness(p["E"], p["nu"])
    c = np.sqrt(2 / 3)

    def residual(y: np.ndarray, old: np.ndarray, de: np.ndarray, dt: float) -> np.ndarray:
        s, ep, x1, x2 = y[:6], y[6], y[7:13], y[13:19]
        xi = _dev(s - x1 - x2)
        vm = np.sqrt(1.5 * xi @ xi)
        f = c * (vm - p["sy"] - p["R"] * (1 - np.exp(-p["d"] * ep)))
        n = c * 1.5 * xi / vm if vm > 0 else np.zeros(6)
        rate = (max(f, 0.0) / p["eta"]) ** p["n"]
        r = [s - old[:6] - C(de - dt * rate * n), [ep - old[6] - dt * c * rate]]
        for x, xo, i in ((x1, old[7:13], 1), (x2, old[13:19], 2)):
            norm = np.sqrt(x @ x)
            xdot = (2 / 3 * p[f"C{i}"] * n - p[f"g{i}"] * x) * rate - p[f"A{i}"] * norm ** (
                p[f"a{i}"] - 1
            ) * x
            r.append(x - xo - dt * xdot)
        return np.concatenate(r)

    return residual


def gtn(p: dict[str, float]) -> Residual:
    """Residual on ``y = [stress(6), void_fraction]``."""
    C = _stiffness(p["E"], p["nu"])
    sy, q1, q2, q3 = p["sy"], p["q1"], p["q2"], p["q3"]

    def residual(y: np.ndarray, old: np.ndarray, de: np.ndarray, dt: float) -> np.ndarray:
        s, phi = y[:6], y[6]
        d, i1 = _dev(s), s[:3].sum()
        f = 1.5 * d @ d / sy**2 + 2 * q1 * phi * np.cosh(q2 * i1 / (2 * sy)) - (1 + q3 * phi**2)
        n = 3 * d / sy**2 + q1 * q2 * phi / sy * np.sinh(q2 * i1 / (2 * sy)) * I6
        rate = (max(f, 0.0) / p["eta"]) ** p["n"]
        rs = s - old[:6] - C(de - dt * rate * n)
        rphi = phi - old[6] - dt * (1 - phi) * rate * n[:3].sum()
        return np.concatenate([rs, [rphi]])

    return residual
