"""The shared test scenarios of the runtime tests: compiled artifacts and deterministic inputs.

Compile flags and layout are those of :mod:`neml2.aoti.compile.testing` (one table for every
suite, so the compile cache and ``$NEML2_TEST_ARTIFACTS`` are shared): scenario ``<s>`` lives in
``<dir>/<s>/model/`` with its stub ``<dir>/<s>/model_aoti.i``. Used by ``conftest.py`` and by
the nox ``deploy`` session (``deploy_reference.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from neml2.aoti.compile.testing import (
    SCENARIOS as COMPILE,
    scenario_artifact,
    scenario_compile_args,
    scenario_input,
)

__all__ = [
    "COMPILE",
    "F32_SOLVER",
    "artifact_folder",
    "leaf",
    "make_inputs",
    "relax_eager_for_float32",
    "relax_for_float32",
    "scenario_input",
]


def leaf(root: Path, device: torch.device, dtype: torch.dtype) -> Path:
    """The ``<device>/<dtype>`` leaf folder of an artifact root."""
    return root / device.type / str(dtype).removeprefix("torch.")


def artifact_folder(scenario: str, device: torch.device, dtype: torch.dtype, scratch: Path) -> Path:
    """Folder holding ``model/`` (with the leaf under test) and ``model_aoti.i``.

    cpu leaves come from ``$NEML2_TEST_ARTIFACTS`` or the shared on-demand build; other devices
    are compiled into ``scratch/<scenario>`` (through the compile cache).
    """
    if scenario not in COMPILE:
        raise KeyError(f"unknown test scenario '{scenario}' (known: {sorted(COMPILE)})")
    dt = str(dtype).removeprefix("torch.")
    if device.type == "cpu":
        return scenario_artifact(scenario, dt).parent
    from neml2.aoti.compile import compile_model

    folder = scratch / scenario
    if not leaf(folder / "model", device, dtype).is_dir():
        source, options = scenario_compile_args(scenario)
        compile_model(
            source,
            output_dir=folder,
            devices=[device.type],
            dtype=dt,
            progress=lambda _: None,
            **options,
        )
    return folder


def make_inputs(
    names: list[str], base_shapes: list[list[int]], batch: int, device: Any, dtype: Any
) -> dict[str, torch.Tensor]:
    """Deterministic inputs ``(batch, *base)``: one step of size dt = 1 from a small state.

    ``t`` = 1 and ``t~1`` = 0; every other variable (strain, old state) is uniform in
    ±1e-2 (a strain of 1 % makes the Chaboche model yield).
    """
    gen = torch.Generator().manual_seed(1234 + batch)
    out: dict[str, torch.Tensor] = {}
    for name, base in zip(names, base_shapes, strict=True):
        shape = (batch, *base)
        if name == "t":
            value = torch.ones(shape, dtype=torch.float64)
        elif name == "t~1":
            value = torch.zeros(shape, dtype=torch.float64)
        else:
            value = 1e-2 * (2.0 * torch.rand(shape, generator=gen, dtype=torch.float64) - 1.0)
        out[name] = value.to(device=device, dtype=dtype)
    return out


#: Newton tolerances of the implicit scenarios in float32 runs: float32 cannot reach the
#: scenarios' 1e-10 / 1e-8, so both routes get these (and then agree to about 1e-4)
F32_SOLVER = {"atol": 1e-2, "rtol": 1e-4}


def relax_for_float32(model: Any) -> Any:
    """Apply :data:`F32_SOLVER` to a float32 compiled model (``Model`` or ``AOTIModel``)."""
    if model.dtype == torch.float32:
        model.set_solver_config(**F32_SOLVER)
    return model


def relax_eager_for_float32(model: Any, dtype: torch.dtype) -> Any:
    """:data:`F32_SOLVER` for a float32 eager ``ImplicitUpdate`` (its Newton's tolerances)."""
    solver = getattr(model, "solver", None)
    if dtype == torch.float32 and solver is not None:
        solver.abs_tol, solver.rel_tol = F32_SOLVER["atol"], F32_SOLVER["rtol"]
    return model


def eager_value(x: Any) -> torch.Tensor:
    """The tensor of a py-eager result (a typed wrapper's ``.data``, or the tensor itself)."""
    value: torch.Tensor = x if isinstance(x, torch.Tensor) else x.data
    return value
