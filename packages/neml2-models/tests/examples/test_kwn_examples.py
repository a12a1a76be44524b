"""The KWN isothermal precipitation example runs with ``neml2-run`` (CSV + plot) and obeys the
physics: solute conservation, the volume fraction of the recorded distribution, the nucleation
rate of classical nucleation theory at the recorded matrix concentration (and, at early times,
of the initial solution), the number balance against the time integral of the nucleation rate,
and the late-time approach to the (capillarity-corrected) lever rule."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from neml2.cli.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "kwn" / "isothermal_precipitation.i"


def _params() -> dict[str, float]:
    out = {}
    for line in EXAMPLE.read_text().split("[Tensors]")[0].splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=")
            out[k.strip()] = float(v)
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    """Steps x bins arrays of every CSV column (scalars repeated on every bin row)."""
    tmp = tmp_path_factory.mktemp("kwn")
    table, png = tmp / "kwn.csv", tmp / "kwn.png"
    argv = [str(EXAMPLE), "driver", "--csv", str(table), "--plot", str(png),
            "--plot-x", "t", "--plot-y", "volume_fraction,mean_radius"]  # fmt: skip
    assert main(argv) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with table.open() as fh:
        rows = list(csv.DictReader(fh))
    nstep = 1 + max(int(r["step"]) for r in rows)
    nbin = 1 + max(int(r["batch"]) for r in rows)
    assert len(rows) == nstep * nbin
    cols = {}
    for k in rows[0]:
        vals = np.array([float(r[k]) if r[k] else np.nan for r in rows])
        cols[k] = vals.reshape(nstep, nbin)
    return cols


def _cnt_rate(x: np.ndarray, p: dict[str, float]) -> np.ndarray:
    """CNT steady-state nucleation rate written out independently (nm, s, J, mol, K)."""
    T, gamma, vm = p["T"], p["gamma"], p["V_m"]
    dgv = p["R_g"] * T * np.log(x / p["x_eq"]) / vm  # driving force per nm^3
    rstar = 2 * gamma / dgv
    barrier = 16 * np.pi * gamma**3 / (3 * dgv**2)
    omega = vm / p["N_a"]  # atomic volume
    nstar = 4 * np.pi / 3 * rstar**3 / omega
    zeldovich = np.sqrt(barrier / (3 * np.pi * p["k"] * T * nstar**2))
    beta = 4 * np.pi * rstar**2 * p["D"] * x / (omega ** (4 / 3) * p["dx"] ** 2)
    out: np.ndarray = zeldovich * beta * p["N0"] * np.exp(-barrier / (p["k"] * T))
    return out


def test_kwn_example_invariants(run: dict[str, np.ndarray]) -> None:
    p = _params()
    t = run["t"][:, 0]
    N = run["N"]
    f, x = run["volume_fraction"][1:, 0], run["current_concentration"][1:, 0]
    J = run["nucleation_flux_magnitude"][1:, 0]
    centers = p["R_lo"] + p["dR"] * (np.arange(N.shape[1]) + 0.5)
    assert N.shape == (int(p["nsteps"]) + 1, int(p["nbins"]))
    assert np.all(-1e-12 * N.max() <= N)
    # volume fraction of the recorded distribution; solute conservation x0 = x (1 - f) + f xp
    np.testing.assert_allclose(f, (4 * np.pi / 3 * centers**3 * N[1:]).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(x * (1 - f) + f * p["xp"], p["x0"], rtol=1e-12)
    # the nucleation rate is the CNT steady-state rate at the current matrix concentration
    live = J > 1e-30
    np.testing.assert_allclose(J[live], _cnt_rate(x[live], p), rtol=1e-10)
    # early times: the rate of the initial supersaturated solution
    assert J[0] == pytest.approx(_cnt_rate(np.array(p["x0"]), p), rel=1e-5)
    # number balance while nothing leaves the radius range (growth at the smallest bin > 0)
    total = N.sum(-1)
    integral = np.concatenate([[0.0], np.cumsum(J * np.diff(t))])
    grow = np.concatenate([[True], run["critical_radius"][1:, 0] < centers[0]])
    k = int(np.argmin(grow))
    assert k > 40
    np.testing.assert_allclose(total[:k], integral[:k], rtol=1e-9, atol=1e-30)
    # late times: depletion towards x_eq, f near the lever rule (less the capillarity excess)
    lever = (p["x0"] - p["x_eq"]) / (p["xp"] - p["x_eq"])
    assert p["x_eq"] < x[-1] < 1.2 * p["x_eq"]
    assert 0.95 * lever < f[-1] < lever
    assert J[-1] < 1e-30
    # mean radius of the recorded distribution; coarsening has grown it well past the nuclei
    mean = run["mean_radius"][1:, 0]
    np.testing.assert_allclose(mean, (centers * N[1:]).sum(-1) / N[1:].sum(-1), rtol=1e-12)
    assert mean[-1] > 5 * centers[0] and mean[-1] > mean[len(mean) // 2]
