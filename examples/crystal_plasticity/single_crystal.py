"""FCC single crystals in tension: stress-strain curves and the paths of their {111} poles.

Runs ``[Drivers/single_crystals]`` of ``crystal_plasticity.i`` (grains with [001], [111] and
[123] along the loading axis x) and writes one figure: the axial stress against the axial
strain, and the {111} pole figure (upper-hemisphere stereographic projection, sample frame) of
each grain from its initial orientation (circle) to its final one (dot).

    python single_crystal.py [--out single_crystal.png]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

import torch

import neml2

HERE = Path(__file__).resolve().parent
LABELS = ("[001]", "[111]", "[123]")
POLES = torch.tensor([[1.0, 1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, -1.0]],
                     dtype=torch.float64) / 3.0**0.5  # fmt: skip


def rotation_matrix(q: torch.Tensor) -> torch.Tensor:
    """Rotation matrices (crystal to sample) of MRPs ``q`` ``(..., 3)``."""
    from neml2.tensors import MRP, euler_rodrigues

    return euler_rodrigues(MRP(q)).data


def stereographic(v: torch.Tensor) -> torch.Tensor:
    """Upper-hemisphere stereographic projection of unit vectors ``(..., 3)`` → ``(..., 2)``."""
    v = torch.where(v[..., 2:3] < 0, -v, v)
    return v[..., :2] / (1.0 + v[..., 2:3])


def run(driver: str = "single_crystals") -> dict[str, Any]:
    """Axial strain and stress ``(steps, grains)`` and orientations ``(steps, grains, 3)``."""
    factory = neml2.load_input(HERE / "crystal_plasticity.i")
    drv = factory.get_driver(driver)
    with torch.no_grad():
        drv.run()
    res = drv.result()
    steps = sorted({int(k.split(".")[1]) for k in res if k.startswith("input.")})
    t = torch.stack([res[f"input.{i}.t"] for i in steps])
    rate = torch.stack([res[f"input.{i}.deformation_rate"] for i in steps])[..., 0]
    stress = [torch.zeros_like(t[0])] + [res[f"output.{i}.stress"][..., 0] for i in steps[1:]]
    q = torch.stack([res[f"output.{i}.orientation"] for i in steps])
    return {"strain": rate * t, "stress": torch.stack(stress), "orientation": q}


def save_atomically(fig: Any, out: Path) -> None:
    """Write the figure to ``out`` through a temporary file in the same folder."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}-", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def plot(data: dict[str, Any], out: Path) -> None:
    """Stress-strain curves and {111} pole-figure paths, written to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4.5))
    for g, label in enumerate(LABELS):
        ax1.plot(100 * data["strain"][:, g], data["stress"][:, g], label=f"{label} || x")
    ax1.set(xlabel="axial strain (%)", ylabel="axial stress (MPa)", title="FCC single crystals")
    ax1.legend()
    R = rotation_matrix(data["orientation"])  # (steps, grains, 3, 3)
    poles = stereographic(torch.einsum("sgij,pj->sgpi", R, POLES))  # (steps, grains, 4, 2)
    circle = torch.linspace(0, 2 * torch.pi, 200)
    ax2.plot(torch.cos(circle), torch.sin(circle), "k", lw=0.8)
    for g, label in enumerate(LABELS):
        color = f"C{g}"
        for p in range(POLES.shape[0]):
            ax2.plot(poles[:, g, p, 0], poles[:, g, p, 1], color=color, lw=1.5)
            ax2.plot(poles[0, g, p, 0], poles[0, g, p, 1], "o", mfc="none", color=color)
            ax2.plot(poles[-1, g, p, 0], poles[-1, g, p, 1], "o", color=color,
                     label=label if p == 0 else None)  # fmt: skip
    ax2.set(aspect="equal", xlabel="x", ylabel="y", title="{111} pole figure (paths)")
    ax2.legend(loc="upper right")
    fig.tight_layout()
    save_atomically(fig, out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("single_crystal.png"))
    args = p.parse_args(argv)
    data = run()
    plot(data, args.out)
    last = data["stress"][-1].tolist()
    final = ", ".join(f"{lab} {s:.1f} MPa" for lab, s in zip(LABELS, last, strict=True))
    print(f"final axial stress: {final}; figure: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
