"""First half of ``nox -s deploy`` (dev venv): artifacts plus py-eager reference values.

``python deploy_reference.py OUT`` copies the deploy scenarios' artifacts (prebuilt in
``$NEML2_TEST_ARTIFACTS``, else built on demand by :mod:`neml2.aoti.compile.testing`) into
``OUT/<scenario>/`` and writes ``OUT/reference.pt``: per scenario the artifact path, inputs, and
py-eager's outputs and Jacobian blocks. ``deploy_check.py`` replays them in a venv holding only torch and
the neml2-aoti wheel.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neml2
from runtime._scenarios import artifact_folder, make_inputs, scenario_input

#: a forward model, a small implicit one and the Chaboche viscoplastic model (19 unknowns; the
#: Newton loops run in libneml2.so)
DEPLOY_SCENARIOS = ("elasticity", "scalar_implicit", "chaboche")
CPU, F64 = torch.device("cpu"), torch.float64


def _raw(x: Any) -> torch.Tensor:
    value: torch.Tensor = x if isinstance(x, torch.Tensor) else x.data
    return value.detach()


def _artifact(scenario: str, out: Path) -> Path:
    """A copy of the scenario's artifact folder (and stub) under ``out/<scenario>``."""
    folder = out / scenario
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(artifact_folder(scenario, CPU, F64, out / "scratch"), folder)
    return folder / "model"


def reference(scenario: str, out: Path) -> dict[str, Any]:
    """Artifact path, inputs and py-eager values/blocks of one scenario."""
    root = _artifact(scenario, out)
    eager = neml2.load_model(scenario_input(scenario), "model", dtype=F64)
    names = list(eager.input_spec)
    shapes = [list(c.BASE_SHAPE) for c in eager.input_spec.values()]
    x = make_inputs(names, shapes, 7, CPU, F64)
    outputs, J = eager.jacobian(x)
    return {
        "artifact": str(root),
        "inputs": x,
        "outputs": {n: _raw(v) for n, v in outputs.items()},
        "jacobian": {o: {i: _raw(b) for i, b in row.items()} for o, row in J.items()},
    }


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    refs = {s: reference(s, out) for s in DEPLOY_SCENARIOS}
    torch.save(refs, out / "reference.pt")
    print(f"deploy references for {', '.join(refs)} in {out / 'reference.pt'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
