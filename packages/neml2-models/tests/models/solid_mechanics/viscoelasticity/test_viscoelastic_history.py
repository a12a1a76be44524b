"""Time-history verification of the viscoelastic examples against closed-form solutions.

Each example under ``examples/viscoelasticity/`` is run through ``TransientDriver`` with
``ImplicitUpdate`` (backward Euler). Three checks per scenario:

1. convergence: the error against the exact solution halves when the step halves (first order);
2. consistency: the driver history equals the n-fold composition of the model's one-step map
   (the models are linear, so one step is an affine map of the previous state; it is extracted
   from batched model calls and composed exactly with matrix powers);
3. accuracy: with 4·10^6 steps (the composed step map) the history matches the closed form within
   1e-6 relative (max over the history, relative to the largest exact value).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_input

EXAMPLES = Path(__file__).resolve().parents[6] / "examples" / "viscoelasticity"
COVERED_TYPES = {"ConstantExtrapolationPredictor"}

Exact = Callable[[dict[str, float], np.ndarray, np.ndarray], dict[str, np.ndarray]]


def _params(path: Path) -> dict[str, float]:
    """Top-level numeric HIT variables of an example (``E = 1000.0``)."""
    pat = re.compile(r"^(\w+)\s*=\s*([-+0-9.eE]+)\s*$", re.MULTILINE)
    return {k: float(v) for k, v in pat.findall(path.read_text())}


def _e(rate: float, t: np.ndarray) -> np.ndarray:
    return np.exp(-rate * t)[:, None]


_I = np.array([1.0, 1, 1, 0, 0, 0])


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vol = x[:3].sum() / 3 * _I
    return vol, x - vol


def _bulk_shear(p: dict[str, float]) -> tuple[float, float]:
    return p["E"] / (3 * (1 - 2 * p["nu"])), p["E"] / (2 * (1 + p["nu"]))


def _maxwell_relaxation(p: dict[str, float], t: np.ndarray, e0: np.ndarray) -> Any:
    k, g = _bulk_shear(p)
    vol, dev = _split(e0)
    ee = vol * _e(3 * k / p["eta"], t) + dev * _e(2 * g / p["eta"], t)
    ee_vol, ee_dev = vol * _e(3 * k / p["eta"], t), dev * _e(2 * g / p["eta"], t)
    return {"stress": 3 * k * ee_vol + 2 * g * ee_dev, "viscous_strain": e0 - ee}


def _maxwell_creep(p: dict[str, float], t: np.ndarray, s0: np.ndarray) -> Any:
    k, g = _bulk_shear(p)
    vol, dev = _split(s0)
    ev = s0 * t[:, None] / p["eta"]
    return {"strain": vol / (3 * k) + dev / (2 * g) + ev, "viscous_strain": ev}


def _kelvin_voigt(p: dict[str, float], t: np.ndarray, s0: np.ndarray) -> Any:
    return {"strain": s0 / p["K"] * (1 - _e(p["K"] / p["eta"], t))}


def _zener(p: dict[str, float], t: np.ndarray, e0: np.ndarray) -> Any:
    decay = _e(p["E_M"] / p["eta_M"], t)
    return {"stress": (p["E_inf"] + p["E_M"] * decay) * e0, "viscous_strain": (1 - decay) * e0}


def _burgers(p: dict[str, float], t: np.ndarray, s0: np.ndarray) -> Any:
    ek = s0 / p["E_K"] * (1 - _e(p["E_K"] / p["eta_K"], t))
    em = s0 * t[:, None] / p["eta_M"]
    return {"strain": s0 / p["E_M"] + em + ek, "maxwell_viscous_strain": em,
            "kelvin_voigt_strain": ek}  # fmt: skip


def _wiechert(p: dict[str, float], t: np.ndarray, e0: np.ndarray) -> Any:
    arms = [i for i in (1, 2, 3) if f"E_{i}" in p]
    out = {f"viscous_strain_{i}": (1 - _e(p[f"E_{i}"] / p[f"eta_{i}"], t)) * e0 for i in arms}
    relax = p["E_inf"] + sum(p[f"E_{i}"] * _e(p[f"E_{i}"] / p[f"eta_{i}"], t) for i in arms)
    return {"stress": relax * e0, **out}


@dataclass(frozen=True)
class Scenario:
    file: str
    force: str  # prescribed variable
    values: str  # its [Tensors] block
    exact: Exact
    be_exact: bool = False  # backward Euler reproduces the solution (constant rates)


SCENARIOS = [
    Scenario("maxwell_relaxation.i", "strain", "strains", _maxwell_relaxation),
    Scenario("maxwell_creep.i", "applied_stress", "stresses", _maxwell_creep, be_exact=True),
    Scenario("kelvin_voigt_creep.i", "applied_stress", "stresses", _kelvin_voigt),
    Scenario("kelvin_voigt_creep_composed.i", "applied_stress", "stresses", _kelvin_voigt),
    Scenario("zener_relaxation.i", "strain", "strains", _zener),
    Scenario("zener_relaxation_composed.i", "strain", "strains", _zener),
    Scenario("burgers_creep.i", "applied_stress", "stresses", _burgers),
    Scenario("burgers_creep_composed.i", "applied_stress", "stresses", _burgers),
    Scenario("wiechert_relaxation.i", "strain", "strains", _wiechert),
    Scenario("wiechert_relaxation_composed.i", "strain", "strains", _wiechert),
]
IDS = [s.file.removesuffix(".i") for s in SCENARIOS]


def _load(sc: Scenario, nsteps: int, dtype: torch.dtype) -> Any:
    # float32: a few ulps of the stress-scale residuals (strain-scale ones are ~1e-4 and below)
    atol, rtol = ("1e-10", "1e-10") if dtype == torch.float64 else ("1e-5", "1e-4")
    args = [f"nsteps:={nsteps}", f"abs_tol:={atol}", f"rel_tol:={rtol}"]
    return load_input(EXAMPLES / sc.file, additional_args=args, dtype=dtype)


def _run(sc: Scenario, nsteps: int, dtype: torch.dtype) -> tuple[Any, dict[str, np.ndarray]]:
    """Driver history ``{output: (nsteps, 6)}`` for steps 1..nsteps, and the input file."""
    f = _load(sc, nsteps, dtype)
    driver = f.get_driver("driver")
    driver.run()
    res = driver.result()
    names = list(f.get_model("model").output_spec)
    hist = {n: np.stack([res[f"output.{k}.{n}"].detach().double().numpy()
                         for k in range(1, nsteps + 1)]) for n in names}  # fmt: skip
    return f, hist


def _step_map(f: Any, sc: Scenario, h: float) -> tuple[list[str], torch.Tensor]:
    """Augmented matrix ``M`` with ``[y_n; 1] = M [y_{n-1}; 1]`` (``y``: all outputs stacked)."""
    model = f.get_model("model")
    outs = list(model.output_spec)
    m = 6 * len(outs)
    force = f.get_tensor(sc.values).data[-1].double()
    eye = torch.cat([torch.zeros(1, m), torch.eye(m)]).double()
    inputs: dict[str, torch.Tensor] = {}
    for name in model.input_spec:
        if name == "t":
            inputs[name] = torch.full((m + 1,), h, dtype=torch.float64)
        elif name == "t~1":
            inputs[name] = torch.zeros(m + 1, dtype=torch.float64)
        elif name == sc.force:
            inputs[name] = force.expand(m + 1, 6)
        else:
            base = name.removesuffix("~1")
            assert base != name and base in outs, f"unexpected input {name}"
            i = outs.index(base)
            inputs[name] = eye[:, 6 * i : 6 * i + 6]
    with torch.no_grad():
        res = model.double().call_by_name(inputs)
    y = torch.cat([res[o].data for o in outs], dim=-1)
    a = (y[1:] - y[0]).T
    top = torch.cat([a, y[0][:, None]], dim=1)
    bottom = torch.cat([torch.zeros(1, m), torch.ones(1, 1)], dim=1).double()
    return outs, torch.cat([top, bottom])


def _compose(outs: list[str], mat: torch.Tensor, steps: list[int]) -> dict[str, np.ndarray]:
    """``y_n`` for each ``n`` in ``steps`` (zero initial state)."""
    ys = torch.stack([torch.linalg.matrix_power(mat, n)[:-1, -1] for n in steps]).numpy()
    return {o: ys[:, 6 * i : 6 * i + 6] for i, o in enumerate(outs)}


def _error(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> float:
    """Max over variables of max |got - want| / max |want| over the history."""
    return max(float(np.abs(got[k] - w).max() / np.abs(w).max()) for k, w in want.items())


def _exact(sc: Scenario, f: Any, t: np.ndarray) -> dict[str, np.ndarray]:
    p = _params(EXAMPLES / sc.file)
    return sc.exact(p, t, f.get_tensor(sc.values).data[-1].double().numpy())


@pytest.mark.parametrize("sc", SCENARIOS, ids=IDS)
def test_first_order_convergence(sc: Scenario, dtype: torch.dtype) -> None:
    errors = []
    for n in (40, 80, 160):
        f, hist = _run(sc, n, dtype)
        tend = _params(EXAMPLES / sc.file)["tend"]
        errors.append(_error(hist, _exact(sc, f, tend * np.arange(1, n + 1) / n)))
    if sc.be_exact:
        assert max(errors) < (1e-12 if dtype == torch.float64 else 1e-5), errors
        return
    assert errors[0] > 1e-3, errors  # the test resolves the discretization error
    rates = [np.log2(errors[i] / errors[i + 1]) for i in range(2)]
    assert all(0.9 < r < 1.1 for r in rates), (errors, rates)


@pytest.mark.parametrize("sc", SCENARIOS, ids=IDS)
def test_driver_matches_step_map(sc: Scenario, dtype: torch.dtype) -> None:
    n = 40
    _, hist = _run(sc, n, dtype)
    tend = _params(EXAMPLES / sc.file)["tend"]
    outs, mat = _step_map(_load(sc, n, torch.float64), sc, tend / n)
    composed = _compose(outs, mat, list(range(1, n + 1)))
    err = _error(hist, composed)
    assert err < (1e-10 if dtype == torch.float64 else 1e-4), err


@pytest.mark.parametrize("sc", SCENARIOS, ids=IDS)
def test_exact_solution_fine_steps(sc: Scenario) -> None:
    """4e6 backward-Euler steps (composed step map): within 1e-6 of the closed form."""
    n = 4_000_000
    f = _load(sc, 1, torch.float64)
    tend = _params(EXAMPLES / sc.file)["tend"]
    outs, mat = _step_map(f, sc, tend / n)
    steps = [n * k // 50 for k in range(1, 51)]
    got = _compose(outs, mat, steps)
    want = _exact(sc, f, tend * np.array(steps) / n)
    err = _error({k: got[k] for k in want}, want)
    assert err < 1e-6, err
