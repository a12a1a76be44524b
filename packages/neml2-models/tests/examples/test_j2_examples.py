"""The J2 plasticity / viscoplasticity examples run with ``neml2-run`` and match their gold.

Each example's ``regression`` driver (a ``TransientRegression`` around the ``driver``) runs via
``neml2-run`` in float64 — the gold files were written in float64 by ``_gold.py`` after the
verification suite passed. The Chaboche example's ``--csv``/``--plot`` output is checked by
value: closed hysteresis loops with positive dissipation that grows with the amplitude, and back
stresses that approach but never exceed their saturation values.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from neml2.cli.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = sorted((ROOT / "examples" / "plasticity").glob("*.i")) + sorted(
    (ROOT / "examples" / "viscoplasticity").glob("*.i")
)
GOLD_LIMIT = 200_000


def test_every_example_has_a_small_gold_file() -> None:
    assert len(EXAMPLES) >= 10
    for path in EXAMPLES:
        gold = path.parent / "gold" / f"{path.stem}.pt"
        assert f"reference = 'gold/{path.stem}.pt'" in path.read_text(), path.name
        assert 0 < gold.stat().st_size < GOLD_LIMIT, gold


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_regression(path: Path) -> None:
    assert main([str(path), "regression"]) == 0


def _columns(path: Path, batch: int) -> dict[str, np.ndarray]:
    with path.open() as fh:
        rows = [r for r in csv.DictReader(fh) if int(r["batch"]) == batch]
    return {k: np.array([float(r[k] or "nan") for r in rows]) for k in rows[0]}


def test_chaboche_csv_and_plot(tmp_path: Path) -> None:
    path = ROOT / "examples" / "viscoplasticity" / "chaboche.i"
    table, png = tmp_path / "chaboche.csv", tmp_path / "chaboche.png"
    assert main([str(path), "driver", "--csv", str(table), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = path.read_text()
    p = {k: float(text.split(f"\n{k} = ")[1].split("\n")[0]) for k in ("C1", "g1", "C2", "g2")}
    areas = []
    for b in (0, 1):
        c = _columns(table, b)
        e, s = c["strain_xx"], np.nan_to_num(c["stress_xx"])
        assert len(e) == 101 and abs(e[50]) < 1e-12 and abs(e[100]) < 1e-12
        # dissipation = loop area per cycle (trapezoidal integral of s de over a closed cycle)
        cycle = [
            float(np.sum(0.5 * (s[i + 1 : j] + s[i : j - 1]) * np.diff(e[i:j])))
            for i, j in ((0, 51), (50, 101))
        ]
        assert all(a > 0 for a in cycle)
        np.testing.assert_allclose(cycle[1], cycle[0], rtol=0.2)  # nearly stabilised loops
        areas.append(cycle[1])
        for i in (1, 2):
            sat = (2 / 3) ** 1.5 * p[f"C{i}"] / p[f"g{i}"]
            x = np.nan_to_num(c[f"X{i}_xx"])
            assert np.abs(x).max() < sat
        if b == 1:  # the larger amplitude drives X1 (fast) close to saturation in every cycle
            sat1 = (2 / 3) ** 1.5 * p["C1"] / p["g1"]
            x1 = np.abs(np.nan_to_num(c["X1_xx"]))
            peaks = [x1[i : i + 25].max() for i in (0, 25, 50, 75)]
            assert min(peaks) > 0.95 * sat1
    assert areas[1] > 2 * areas[0]
