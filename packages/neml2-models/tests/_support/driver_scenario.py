"""A small transient scenario (elasticity + forward-Euler scalar) with an independent closed form.

Model: ``stress = lambda tr(strain) I + 2 mu strain`` (Mandel storage, so the same formula holds
component-wise) and ``x = x~1 + (t - t~1) x_rate``. Forces: time ``t_k``, ``strain_k``
(batch ``B``), ``x_rate_k``; optional IC ``x_0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

E, NU = 1e5, 0.3
LAM = E * NU / ((1 + NU) * (1 - 2 * NU))
MU = E / (2 * (1 + NU))


@dataclass
class Scenario:
    """Load history and closed-form responses."""

    times: np.ndarray  # (N,)
    strain: np.ndarray  # (N, B, 6)
    rate: np.ndarray  # (N,)
    x0: float | None

    @property
    def nsteps(self) -> int:
        return int(self.times.shape[0])

    def stress(self) -> np.ndarray:
        tr = self.strain[..., :3].sum(-1, keepdims=True)
        out: np.ndarray = LAM * tr * np.array([1.0, 1, 1, 0, 0, 0]) + 2 * MU * self.strain
        return out

    def x(self) -> list[float]:
        """x_k for k = 0..N-1 (x_0 is the IC, or 0 when the model zero-fills x~1)."""
        out = [self.x0 if self.x0 is not None else 0.0]
        for k in range(1, self.nsteps):
            out.append(out[-1] + (self.times[k] - self.times[k - 1]) * self.rate[k])
        return out

    def hit(self, *, driver_extra: str = "", extra_blocks: str = "") -> str:
        ic = (
            f"    ic_Scalar_names = 'x'\n    ic_Scalar_values = '{self.x0!r}'\n"
            if self.x0 is not None
            else ""
        )
        return f"""
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.tensor({self.times.tolist()}, dtype=torch.float64))'
  []
  [eps]
    type = Python
    expr = 'SR2(torch.tensor({self.strain.tolist()}, dtype=torch.float64))'
  []
  [xrate]
    type = Python
    expr = 'Scalar(torch.tensor({self.rate.tolist()}, dtype=torch.float64))'
  []
[]
[Models]
  [elastic]
    type = LinearIsotropicElasticity
    coefficients = '{E} {NU}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [euler]
    type = ScalarForwardEulerTimeIntegration
    variable = 'x'
  []
  [model]
    type = ComposedModel
    models = 'elastic euler'
  []
[]
[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'eps'
    prescribed_Scalar_names = 'x_rate'
    prescribed_Scalar_values = 'xrate'
{ic}{driver_extra}  []
{extra_blocks}[]
"""


def make(nsteps: int = 5, batch: int = 3, x0: float | None = 0.5, seed: int = 0) -> Scenario:
    """A random but smooth scenario."""
    rng = np.random.default_rng(seed)
    times = np.cumsum(np.r_[0.0, rng.uniform(0.1, 0.5, nsteps - 1)])
    strain = np.cumsum(rng.normal(scale=1e-4, size=(nsteps, batch, 6)), axis=0)
    rate = rng.uniform(-1, 1, nsteps)
    return Scenario(times, strain, rate, x0)


SR2_COLS = ("_xx", "_yy", "_zz", "_yz", "_xz", "_xy")


def write_reference_csv(path: object, sc: Scenario, batch_index: int = 0) -> None:
    """Closed-form ``stress`` (zero row at step 0) and ``x`` histories as a CSV table."""
    import csv

    stress = sc.stress()[:, batch_index]
    stress[0] = 0.0
    xs = sc.x()
    with open(str(path), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"stress{c}" for c in SR2_COLS] + ["x"])
        for k in range(sc.nsteps):
            w.writerow([repr(float(v)) for v in stress[k]] + [repr(float(xs[k]))])


VERIFICATION_BLOCKS = """  [verify]
    type = Verification
    driver = 'driver'
    SR2_names = 'output.stress'
    SR2_values = 'stress_ref'
    Scalar_names = 'output.x'
    Scalar_values = 'x_ref'
    rtol = 1e-10
    atol = 1e-10
  []
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold.pt'
  []
"""

REFERENCE_TENSORS = """[Tensors]
  [stress_ref]
    type = CSVSR2
    csv_file = 'reference.csv'
    variable = 'stress'
  []
  [x_ref]
    type = CSVScalar
    csv_file = 'reference.csv'
    variable = 'x'
  []
[]
"""


def write_case(directory: object, sc: Scenario) -> str:
    """Write ``model.i`` (driver, Verification, TransientRegression) and ``reference.csv``;
    return the input file path. The gold file ``gold.pt`` is left to the caller."""
    from pathlib import Path

    d = Path(str(directory))
    write_reference_csv(d / "reference.csv", sc)
    text = sc.hit(extra_blocks=VERIFICATION_BLOCKS) + REFERENCE_TENSORS
    path = d / "model.i"
    path.write_text(text)
    return str(path)
