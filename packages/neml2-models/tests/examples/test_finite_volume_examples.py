"""The finite-volume advection-diffusion example runs with ``neml2-run`` (``--csv``, ``--plot``)
and its history equals an independent numpy backward-Euler solve of the same upwind scheme; the
final profile is the scheme's closed-form steady solution, first-order close to the exact one."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from neml2.cli.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "finite_volume" / "advection_diffusion.i"
N, V, D, NSTEPS, TEND = 20, 1.0, 0.2, 50, 5.0
H = 1.0 / (N + 1)


def _rate(u: np.ndarray) -> np.ndarray:
    """-(J_{i+1/2} - J_{i-1/2})/h with upwind advection (v > 0) and central diffusion."""
    ue = np.concatenate([[0.0], u, [1.0]])
    flux = V * ue[:-1] - D * (ue[1:] - ue[:-1]) / H
    rate: np.ndarray = -(flux[1:] - flux[:-1]) / H
    return rate


def _backward_euler() -> np.ndarray:
    """Every step of the backward-Euler history (the rate is affine: A u + b)."""
    b = _rate(np.zeros(N))
    A = np.stack([_rate(e) - b for e in np.eye(N)], axis=1)
    dt = TEND / NSTEPS
    u = np.zeros((NSTEPS + 1, N))
    for k in range(1, NSTEPS + 1):
        u[k] = np.linalg.solve(np.eye(N) - dt * A, u[k - 1] + dt * b)
    return u


def test_advection_diffusion_example(tmp_path: Path) -> None:
    table, png = tmp_path / "u.csv", tmp_path / "u.png"
    assert main([str(EXAMPLE), "driver", "--csv", str(table), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with table.open() as fh:
        rows = list(csv.DictReader(fh))
    u = np.zeros((NSTEPS + 1, N))
    t = np.zeros(NSTEPS + 1)
    for r in rows:
        u[int(r["step"]), int(r["batch"])] = float(r["u"])
        t[int(r["step"])] = float(r["t"])
    np.testing.assert_allclose(t, np.linspace(0, TEND, NSTEPS + 1), rtol=0, atol=1e-14)
    np.testing.assert_allclose(u, _backward_euler(), rtol=1e-9, atol=1e-11)
    # steady state: the upwind scheme's closed form, and first-order close to the exact profile
    x = H * np.arange(1, N + 1)
    ratio = 1 + V * H / D
    discrete = (ratio ** np.arange(1, N + 1) - 1) / (ratio ** (N + 1) - 1)
    np.testing.assert_allclose(u[-1], discrete, rtol=0, atol=1e-6)
    pe = V / D
    exact = np.expm1(pe * x) / np.expm1(pe)
    err = np.abs(u[-1] - exact).max()
    assert 0.03 < err < 0.04  # O(h) upwind error (0.037), see the example's header
