r"""Shared compiled scenarios for the test suites (compile each scenario × dtype once per run).

The nox ``tests`` session runs, before pytest::

    python -m neml2.aoti.compile.testing "$NEML2_TEST_ARTIFACTS" --dtypes float64 float32

and exports ``NEML2_TEST_ARTIFACTS``; :func:`scenario_artifact` then just points into that folder.
Without the variable, it compiles on demand into ``$NEML2_COMPILE_CACHE``'s ``artifacts/`` (the
compile cache makes that a copy after the first time). Layout per scenario:
``<dir>/<scenario>/model_aoti.i`` + ``<dir>/<scenario>/model/`` (one leaf per dtype).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "SCENARIOS",
    "build_scenarios",
    "scenario_artifact",
    "scenario_compile_args",
    "scenario_input",
    "scenarios_dir",
]

_HERE = Path(__file__).resolve()

#: scenario → compile options (``compile_model`` keywords besides the input file)
SCENARIOS: dict[str, dict[str, Any]] = {
    "elasticity": {
        "model": "model",
        "promote": ["model.E"],
        "derivatives": ["stress:strain", "stress:model.E"],
    },
    "scalar_implicit": {
        "model": "model",
        "promote": ["implicit_rate.rate.scaling"],
        "derivatives": ["x:", "x:implicit_rate.rate.scaling"],
    },
    # scalar_implicit.i with max_its = 9 and max_substepping_level = 3 (float64 only): large steps
    # are cut in halves on every route (the route-parity suite)
    "scalar_substep": {
        "dtypes": ["float64"],
        "model": "model",
        "promote": ["implicit_rate.rate.scaling"],
        "derivatives": ["x:", "x:implicit_rate.rate.scaling"],
    },
    "chaboche": {"model": "model", "derivatives": ["stress:strain"]},
    # chaboche.i with its Newton graphs lowered as exported (float64 only): graphs with per-point
    # intermediates, for the tests of row blocks bounding their memory
    "chaboche_exported": {
        "input": "chaboche",
        "dtypes": ["float64"],
        "model": "model",
        "derivatives": ["stress:strain"],
        "scalarize_newton": False,
    },
    # the benchmark's FCC Taylor model (crystal plasticity: per-slip intermediates on a
    # sub-batch axis inside the Newton graphs; float64 only)
    "taylor": {
        "dtypes": ["float64"],
        "model": "model",
        "derivatives": ["elastic_strain:deformation_rate", "orientation:orientation~1"],
    },
    # a forward model whose x/y carry a declared sub-batch of 3 sites next to plain-batch
    # strain/stress (float64 only): the dispatcher tests chunking of sub-batched inputs, of the
    # site-diagonal block dy/dx and of the per-site parameter block dy/dscaling
    "sub_batch": {
        "dtypes": ["float64"],
        "model": "model",
        "promote": ["elastic.E", "square.scaling"],
        "derivatives": ["stress:strain", "y:x", "stress:elastic.E", "y:square.scaling"],
    },
}


def scenarios_dir() -> Path:
    """The repository's shared scenario folder ``scenarios/`` (every package's tests, the C++
    tests and the benchmarks read their scenario inputs from it).

    ``$NEML2_SCENARIOS`` when set (the workspace ``conftest.py`` and the C++ test projects set it),
    else the ``scenarios`` folder of the repository holding this module (an editable install).
    An installed wheel has no repository above it: there the variable is required.
    """
    env = os.environ.get("NEML2_SCENARIOS")
    if env:
        return Path(env)
    for parent in _HERE.parents:
        if (parent / "scenarios").is_dir() and (parent / "pyproject.toml").is_file():
            return parent / "scenarios"
    raise FileNotFoundError(
        f"no scenarios/ folder above {_HERE} (an installed package): set NEML2_SCENARIOS to the "
        f"repository's scenarios/ folder"
    )


def scenario_input(name: str) -> Path:
    """The scenario's input file: ``scenarios/<name>.i`` (:func:`scenarios_dir`)."""
    f = scenarios_dir() / f"{name}.i"
    if not f.is_file():
        raise FileNotFoundError(f"scenario input '{name}.i' not found in {f.parent}")
    return f


def scenario_compile_args(name: str) -> tuple[Path, dict[str, Any]]:
    """(input file, ``compile_model`` keywords) of a scenario (``input``: another scenario's
    input file; ``dtypes``: the only dtypes built)."""
    options = {k: v for k, v in SCENARIOS[name].items() if k not in ("input", "dtypes")}
    return scenario_input(SCENARIOS[name].get("input", name)), options


def build_scenarios(
    out_dir: str | Path,
    dtypes: Sequence[str] = ("float64", "float32"),
    jobs: int = 1,
    names: Sequence[str] | None = None,
    quiet: bool = False,
) -> dict[str, Path]:
    """Compile every scenario × dtype into ``out_dir``; returns scenario → artifact folder."""
    from neml2.aoti.compile._pipeline import compile_model

    out: dict[str, Path] = {}
    for name in names or list(SCENARIOS):
        source, options = scenario_compile_args(name)
        only = SCENARIOS[name].get("dtypes")
        for dt in dtypes:
            if only is not None and dt not in only:
                continue
            compile_model(
                source,
                output_dir=Path(out_dir) / name,
                dtype=dt,
                jobs=jobs,
                progress=None if quiet else (lambda s: print(s, flush=True)),
                **options,
            )
        out[name] = Path(out_dir) / name / "model"
    return out


def scenario_artifact(name: str, dtype: str = "float64") -> Path:
    """Artifact folder of a scenario with a ``dtype`` leaf (prebuilt, else compiled now)."""
    env = os.environ.get("NEML2_TEST_ARTIFACTS")
    if env:
        root = Path(env) / name / "model"
        if (root / "cpu" / dtype).is_dir():
            return root
    from neml2.aoti.compile._cache import cache_dir, entry_lock

    base = cache_dir() / "artifacts"
    with entry_lock(f"scenario-{name}"):
        build_scenarios(base, dtypes=(dtype,), names=[name], quiet=True)
    return base / name / "model"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m neml2.aoti.compile.testing OUT_DIR [--dtypes ...] [-j N] [--only NAME ...]``."""
    p = argparse.ArgumentParser(prog="python -m neml2.aoti.compile.testing")
    p.add_argument("out_dir")
    p.add_argument("--dtypes", nargs="+", default=["float64", "float32"])
    p.add_argument("-j", dest="jobs", type=int, default=1)
    p.add_argument("--only", nargs="+", default=None, choices=list(SCENARIOS))
    a = p.parse_args(argv)
    build_scenarios(a.out_dir, a.dtypes, a.jobs, a.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
