r"""Independent numpy references for the J2 plasticity verification (no neml2 code).

Mandel storage (6 components, shear scaled by :math:`\sqrt 2`), so :math:`A:B` is the dot
product and :math:`\sigma_{vm} = \sqrt{3/2}\,|\mathrm{dev}\,\sigma|`.

* :func:`radial_return`: 3D backward-Euler return mapping for linear isotropic
  (:math:`h = K\bar\varepsilon_p`) and linear kinematic (:math:`X = H K_p`,
  :math:`\dot K_p = \dot\varepsilon_p`) hardening. The radial return is exact here:
  :math:`\Delta\bar\varepsilon_p = f_{tr} / (3G + \tfrac32 H + K)`.
* :func:`uniaxial_return`: the same algorithm in 1D (uniaxial stress) with Young's modulus E,
  isotropic modulus K and uniaxial kinematic modulus :math:`H_k = \tfrac32 H`.
* :func:`perzyna_creep`: uniaxial-stress creep with Perzyna flow and Voce hardening, backward
  Euler on :math:`\bar\varepsilon_p` solved with a bracketing root finder.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq  # type: ignore[import-untyped]

I6 = np.array([1.0, 1, 1, 0, 0, 0])


def dev(x: np.ndarray) -> np.ndarray:
    """Deviatoric part of Mandel vectors ``(..., 6)``."""
    out: np.ndarray = x - x[..., :3].sum(-1, keepdims=True) / 3 * I6
    return out


def lame(E: float, nu: float) -> tuple[float, float]:
    """Lame constants (lambda, mu)."""
    return E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))


def radial_return(
    strain: np.ndarray, E: float, nu: float, sy: float | np.ndarray, K: float = 0.0, H: float = 0.0
) -> dict[str, np.ndarray]:
    """Stress, equivalent plastic strain and plastic strain histories for ``strain (N, B, 6)``
    (state zero at step 0); ``sy`` broadcasts to ``(N, B)``."""
    lam, mu = lame(E, nu)
    n, b = strain.shape[:2]
    sy = np.broadcast_to(np.asarray(sy, dtype=float), (n, b))
    ep, ebar, back = np.zeros((b, 6)), np.zeros(b), np.zeros((b, 6))
    out = {k: np.zeros((n, b, *s)) for k, s in (("stress", (6,)), ("ep", ()), ("Ep", (6,)))}
    for k in range(1, n):
        ee = strain[k] - ep
        trial = lam * ee[:, :3].sum(-1, keepdims=True) * I6 + 2 * mu * ee
        xi = dev(trial) - back
        norm = np.linalg.norm(xi, axis=-1)
        f = np.sqrt(1.5) * norm - (sy[k] + K * ebar)
        dg = np.where(f > 0, f / (3 * mu + 1.5 * H + K), 0.0)
        dep = np.sqrt(1.5) * dg[:, None] * xi / np.where(norm > 0, norm, 1.0)[:, None]
        ep, back, ebar = ep + dep, back + H * dep, ebar + dg
        ee = strain[k] - ep
        out["stress"][k] = lam * ee[:, :3].sum(-1, keepdims=True) * I6 + 2 * mu * ee
        out["ep"][k], out["Ep"][k] = ebar, ep
    return out


def uniaxial_return(
    strain: np.ndarray, E: float, sy: float, K: float = 0.0, Hk: float = 0.0
) -> np.ndarray:
    """1D return mapping: stress history for the axial strain history ``strain (N, ...)``."""
    ep, ebar, alpha = (np.zeros(strain.shape[1:]) for _ in range(3))
    stress = np.zeros_like(strain)
    for k in range(1, strain.shape[0]):
        xi = E * (strain[k] - ep) - alpha
        f = np.abs(xi) - (sy + K * ebar)
        dg = np.where(f > 0, f / (E + K + Hk), 0.0)
        ep, alpha, ebar = ep + dg * np.sign(xi), alpha + Hk * dg * np.sign(xi), ebar + dg
        stress[k] = E * (strain[k] - ep)
    return stress


def perzyna_creep(
    times: np.ndarray,
    stress: np.ndarray,
    sy: float,
    R: float,
    d: float,
    eta: float,
    n: float,
) -> np.ndarray:
    r"""Equivalent plastic strain history under uniaxial tension ``stress (N,)``:
    :math:`\bar\varepsilon_k = \bar\varepsilon_{k-1} + \Delta t\sqrt{2/3}\,
    \langle\sqrt{2/3}(\sigma_k - s_y - R(1 - e^{-d\bar\varepsilon_k}))/\eta\rangle^n`."""
    c = np.sqrt(2 / 3)
    out = np.zeros_like(times)
    for k in range(1, times.shape[0]):
        dt, prev = times[k] - times[k - 1], out[k - 1]

        def res(e: float, k: int = k, dt: float = dt, prev: float = prev) -> float:
            f = c * (stress[k] - sy - R * (1 - np.exp(-d * e)))
            return float(e - prev - dt * c * (max(f, 0.0) / eta) ** n)

        hi = prev + dt * c * (max(c * (stress[k] - sy), 0.0) / eta) ** n
        out[k] = prev if hi == prev else brentq(res, prev, hi, xtol=1e-15, rtol=1e-15)
    return out
