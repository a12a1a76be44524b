"""py-eager reference values for the C++ parity tests (called through ``neml2::eager::call``).

Each scenario ``<s>`` (the shared ``scenarios/<s>.i``, model ``model``) gets the functions
``<s>__forward``, ``<s>__jvp`` and ``<s>__jacobian``. They load the model with
``neml2.load_model`` and evaluate it on typed plain-batch inputs, independently of the
``neml2.eager`` bridge. Results are flattened into one ``dict[str, Tensor]``:

* forward: ``{out: y}``;
* jvp: the argument holds inputs ``x`` and tangents ``d:x``; returns ``{out: y, d:out: dy}``;
* jacobian: ``{out: y, J:out:in: block}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import torch

import neml2

_SCENARIOS = ("elasticity", "scalar_implicit", "chaboche")
#: the shared scenario inputs (``scenarios/``: CMakeLists.txt sets the variable)
_SCENARIO_DIR = Path(os.environ["NEML2_SCENARIOS"])


@cache
def _model(scenario: str) -> Any:
    return neml2.load_model(_SCENARIO_DIR / f"{scenario}.i", "model")


def _typed(model: Any, values: dict[str, torch.Tensor]) -> dict[str, Any]:
    return {n: cls(values[n]) for n, cls in model.input_spec.items() if n in values}


def _forward(scenario: str, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    model = _model(scenario)
    with torch.no_grad():
        return {n: y.data for n, y in model.call_by_name(_typed(model, values)).items()}


def _jvp(scenario: str, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    model = _model(scenario)
    x = {n: v for n, v in values.items() if not n.startswith("d:")}
    dx = {n[2:]: v for n, v in values.items() if n.startswith("d:")}
    y, dy = model.jvp(_typed(model, x), _typed(model, dx))
    return {**{n: v.data for n, v in y.items()}, **{f"d:{n}": v.data for n, v in dy.items()}}


def _jacobian(scenario: str, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    model = _model(scenario)
    y, J = model.jacobian(_typed(model, values))
    out = {n: v.data for n, v in y.items()}
    for o, row in J.items():
        out.update({f"J:{o}:{i}": b.data for i, b in row.items()})
    return out


def _bind(
    fn: Callable[[str, dict[str, torch.Tensor]], dict[str, torch.Tensor]], scenario: str
) -> Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]]:
    return lambda values: fn(scenario, values)


for _s in _SCENARIOS:
    globals()[f"{_s}__forward"] = _bind(_forward, _s)
    globals()[f"{_s}__jvp"] = _bind(_jvp, _s)
    globals()[f"{_s}__jacobian"] = _bind(_jacobian, _s)
