"""Throughput (points per second) vs batch, one panel per workload and mode."""

from __future__ import annotations

from pathlib import Path

from bench.suite._cells import Cell
from bench.suite._workloads import WORKLOADS
from bench.suite.routes import ROUTES


def throughput_png(cells: list[Cell], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = {r.name: i for i, r in enumerate(ROUTES)}
    panels = [(n, m) for n, wl in WORKLOADS.items() for m in wl.modes]
    panels = [p for p in panels if any(c.ok and (c.workload, c.mode) == p for c in cells)]
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for ax, (name, mode) in zip(axes[0], panels, strict=True):
        lines: dict[tuple[str, str, int], list[Cell]] = {}
        for c in cells:
            if c.ok and (c.workload, c.mode) == (name, mode):
                lines.setdefault((c.route, c.target, c.threads), []).append(c)
        for (route, target, nt), pts in sorted(lines.items()):
            pts.sort(key=lambda c: c.batch)
            ax.loglog(
                [c.batch for c in pts],
                [c.batch / c.median for c in pts],
                "--" if target == "ref" else "-",  # line style: installation
                color=f"C{order.get(route, 9)}",  # colour: route
                marker="o" if nt == 1 else "s",  # marker: threads
                label=f"{target} {route} {nt}T",
            )
        ax.set_title(f"{WORKLOADS[name].title}, {mode}", fontsize=9)
        ax.set_xlabel("batch")
        ax.set_ylabel("points / s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
