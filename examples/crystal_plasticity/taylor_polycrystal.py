"""Taylor polycrystal: the volume average of the grain stresses of a random FCC aggregate.

Runs ``[Drivers/polycrystal]`` of ``crystal_plasticity.i`` (200 grains, uniformly random
orientations, every grain under the same deformation rate: the Taylor assumption) and writes
the axial Taylor-average stress against the axial strain, with the spread of the grains, as a
figure and a CSV table (``strain, mean, min, max`` of the axial stress).

    python taylor_polycrystal.py [--out taylor_polycrystal.png] [--csv taylor_polycrystal.csv]
"""

from __future__ import annotations

import argparse
import csv
import os
import tempfile
from pathlib import Path
from typing import Any

import torch
from single_crystal import run, save_atomically


def taylor_average(data: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Axial strain and the mean/min/max over the grains of the axial stress, per step."""
    s = data["stress"]
    return {
        "strain": data["strain"][:, 0],
        "mean": s.mean(dim=1),
        "min": s.min(dim=1).values,
        "max": s.max(dim=1).values,
    }


def write_csv(avg: dict[str, torch.Tensor], out: Path) -> None:
    """The table through a temporary file in the same folder (never a partial file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=".csv", dir=out.parent)
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(list(avg))
            w.writerows(zip(*(v.tolist() for v in avg.values()), strict=True))
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("taylor_polycrystal.png"))
    p.add_argument("--csv", type=Path, default=Path("taylor_polycrystal.csv"))
    args = p.parse_args(argv)
    avg = taylor_average(run("polycrystal"))
    write_csv(avg, args.csv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    e = 100 * avg["strain"]
    ax.fill_between(e, avg["min"], avg["max"], alpha=0.3, label="grains (min to max)")
    ax.plot(e, avg["mean"], "k", label="Taylor average")
    ax.set(xlabel="axial strain (%)", ylabel="axial stress (MPa)", title="FCC Taylor polycrystal")
    ax.legend()
    fig.tight_layout()
    save_atomically(fig, args.out)
    plt.close(fig)
    print(f"Taylor average axial stress at the end: {float(avg['mean'][-1]):.2f} MPa; "
          f"figure: {args.out}, table: {args.csv}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
