"""The benchmark workloads (input files in the shared ``scenarios/``) and the work per point
each one must do.

A workload's bound is what limits it on this machine: ``"bytes"`` (memory bandwidth, from the
copy rate) or ``"flops"`` (float64 arithmetic, from the large-matmul rate). Counts per point:

* elasticity reads the strain and writes the stress: 2 x 6 doubles = 96 B per point, in both
  modes: with unbatched parameters the Jacobian of the linear model is one 6x6 block for the
  whole batch (a route that writes it per point moves 288 B more per point).
* chaboche (n = 19 unknowns per point) per Newton iteration: residual and Jacobian assembly
  (about 10 flops per Jacobian entry, 10 n^2), dense LU (2/3 n^3) and the two triangular solves
  (2 n^2): 8.9 kflop. The iteration count is read from the model's Newton log at batch 1 (the
  same strain step at every point). The jacobian mode adds the implicit-function solve for the
  k = 33 input columns (2/3 n^3 + 2 n^2 k + 10 n k).
* the driver: the sum of every step's iterations (99 steps) at the same cost per iteration.
* taylor (n = 10 unknowns: elastic strain, slip hardening, orientation) counted the same way, one
  step from the virgin state of randomly oriented grains: a lower bound, as the 12 slip systems
  make its residual and Jacobian assembly cost more than 10 n^2.
"""

from __future__ import annotations

from dataclasses import dataclass

N_UNKNOWNS = 19
N_INPUT_COLUMNS = 33  # strain, strain~1, stress~1, X1~1, X2~1 (6 each) + t, t~1, ep~1


def newton_iteration_flops(n: int = N_UNKNOWNS) -> float:
    """Flops of one Newton iteration on an n x n dense system: 10 n^2 + 2/3 n^3 + 2 n^2."""
    return 10.0 * n**2 + 2.0 / 3.0 * n**3 + 2.0 * n**2


def implicit_jacobian_flops(n: int = N_UNKNOWNS, k: int = N_INPUT_COLUMNS) -> float:
    """Flops of the implicit-function Jacobian: one LU and k column solves, 10 n k assembly."""
    return 2.0 / 3.0 * n**3 + 2.0 * n**2 * k + 10.0 * n * k


@dataclass(frozen=True)
class Workload:
    """One benchmark definition: its input file(s), modes and batch sizes."""

    name: str
    title: str
    modes: tuple[str, ...]
    batches: tuple[int, ...]
    quick_batches: tuple[int, ...]
    bound: str  # "bytes" or "flops"
    newton: bool  # work counted from Newton iterations
    compile_in_quick: bool  # whether --quick may compile its artifact when none is cached
    unknowns: int = N_UNKNOWNS  # Newton unknowns per point
    derivatives: tuple[str, ...] = ("stress:strain",)  # neml2-compile -d pairs

    def work_per_point(self, mode: str, iterations: int | None) -> float | None:
        """Bytes or flops per batch point (None if the iteration count is unknown)."""
        if not self.newton:
            return 96.0
        if iterations is None:
            return None
        work = iterations * newton_iteration_flops(self.unknowns)
        return work + (implicit_jacobian_flops(self.unknowns) if mode == "jacobian" else 0.0)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            "elasticity",
            "elasticity",
            ("forward", "jacobian"),
            (1, 10**3, 10**5, 10**6),
            (1, 10**3, 10**5),
            "bytes",
            newton=False,
            compile_in_quick=True,
        ),
        Workload(
            "chaboche",
            "chaboche one step",
            ("forward", "jacobian"),
            (1, 10**3, 10**4, 10**5),
            (1, 10**3),
            "flops",
            newton=True,
            compile_in_quick=False,
        ),
        Workload(
            "chaboche_driver",
            "chaboche 100-step driver",
            ("forward",),
            (1, 10**3, 10**4, 10**5),
            (1, 100),
            "flops",
            newton=True,
            compile_in_quick=False,
        ),
        Workload(
            "taylor",
            "taylor one step",
            ("forward",),
            (100, 10**3),
            (100,),
            "flops",
            newton=True,
            compile_in_quick=False,
            unknowns=10,
            derivatives=(),
        ),
    )
}
