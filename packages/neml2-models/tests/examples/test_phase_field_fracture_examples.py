"""The phase-field fracture example (homogeneous bar) runs with ``neml2-run --csv --plot`` and its
damage and stress histories match the closed-form homogeneous solution (AT2 and AT1)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from neml2.cli.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "phase_field_fracture" / "homogeneous_bar.i"


def _param(text: str, key: str) -> float:
    return float(text.split(f"\n{key} = ")[1].split("\n")[0])


def _columns(path: Path) -> dict[str, np.ndarray]:
    with path.open() as fh:
        rows = list(csv.DictReader(fh))[1:]  # step 0 is the initial state
    return {k: np.array([float(r[k] or "nan") for r in rows]) for k in rows[0]}


@pytest.mark.parametrize("driver", ["driver", "driver_at1"])
def test_homogeneous_bar_example(driver: str, tmp_path: Path) -> None:
    table, png = tmp_path / "bar.csv", tmp_path / "bar.png"
    argv = [str(EXAMPLE), driver, "--csv", str(table), "--plot", str(png),
            "--plot-x", "strain_xx", "--plot-y", "stress_xx,d"]  # fmt: skip
    assert main(argv) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = EXAMPLE.read_text()
    E, Gc, ell = (_param(text, k) for k in ("E", "Gc", "l"))
    c = _columns(table)
    eps, d, s = c["strain_xx"], c["d"], c["stress_xx"]
    n = int(_param(text, "nsteps"))
    assert len(eps) == n and abs(eps[n // 2 - 1]) < 1e-12  # unloaded to zero at t = 1.5
    psi = np.maximum.accumulate(0.5 * E * eps**2)  # running maximum: irreversibility
    if driver == "driver":  # AT2
        want = psi / (psi + Gc / (2 * ell))
    else:  # AT1: elastic below psi = 3 Gc / (16 l)
        crit = 3 * Gc / (16 * ell)
        want = np.where(psi <= crit, 0.0, 1.0 - crit / np.maximum(psi, crit))
        assert np.any(want == 0.0) and np.any(want > 0.0)
    np.testing.assert_allclose(d, want, rtol=0, atol=1e-9)
    np.testing.assert_allclose(s, (1 - want) ** 2 * E * eps, rtol=1e-9, atol=1e-9)
    for k in ("stress_yy", "stress_zz", "stress_xy"):
        np.testing.assert_allclose(c[k], 0.0, atol=1e-12)  # nu = 0: uniaxial stress
