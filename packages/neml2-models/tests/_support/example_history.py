"""Run an example's TransientDriver in float64 and collect its history as numpy arrays."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_input

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"


def params(path: Path) -> dict[str, float]:
    """Top-level numeric HIT variables of an example (``E = 200000.0``)."""
    pat = re.compile(r"^(\w+)\s*=\s*([-+0-9.eE]+)\s*$", re.MULTILINE)
    return {k: float(v) for k, v in pat.findall(path.read_text())}


def history(path: Path, overrides: list[str] | None = None) -> dict[str, np.ndarray]:
    """``{var: (N, *batch, *base)}`` for every recorded variable (outputs take precedence,
    missing steps are zero, steps recorded unbatched are broadcast to the batch) from the
    example's ``driver`` run in float64."""
    f = load_input(path, additional_args=overrides or [], dtype=torch.float64)
    driver = narrow(f.get_driver("driver"), TransientDriver)
    driver.run()
    result = {k: v.detach().cpu().numpy() for k, v in driver.result().items()}
    nsteps = 1 + max(int(k.split(".")[1]) for k in result)
    out: dict[str, np.ndarray] = {}
    for key in result:
        var = key.split(".", 2)[2]
        if var in out:
            continue
        vals = [
            result.get(f"output.{k}.{var}", result.get(f"input.{k}.{var}")) for k in range(nsteps)
        ]
        present = [v for v in vals if v is not None]
        shape = np.broadcast_shapes(*(v.shape for v in present))
        zero = np.zeros(shape, dtype=present[0].dtype)
        out[var] = np.stack([zero if v is None else np.broadcast_to(v, shape) for v in vals])
    return out


def assert_history(got: np.ndarray, want: np.ndarray, rtol: float = 1e-6) -> None:
    """Agreement within ``rtol`` relative to the largest reference value of the history."""
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)
