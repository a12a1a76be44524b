"""``neml2.aoti.Model`` at batch shapes ``()`` and ``(0,)``, explicit and implicit scenarios.

Unbatched in gives unbatched out (a ``(6,)`` strain gives a ``(6,)`` stress, not ``(1, 6)``),
equal to the first row of a batched call; an empty batch (a finite-element partition that owns
no points) gives empty outputs and Jacobian blocks of the right trailing shapes, as NEML2 v3 and
py-eager do, without running a graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

SCENARIOS = ["elasticity", "scalar_implicit", "chaboche"]


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    """A point solved alone or in a batch: Newton may stop an iteration apart (the scenarios'
    tolerances; float32 runs relax them, see F32_SOLVER)."""
    rtol, atol = (1e-7, 1e-9) if got.dtype == torch.float64 else (1e-3, 1e-4)
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def _rows(inputs: dict[str, torch.Tensor], which: str) -> dict[str, torch.Tensor]:
    return {n: (v[0] if which == "()" else v[:0]) for n, v in inputs.items()}


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("which", ["()", "(0,)"])
def test_forward_and_jacobian(
    scenario: str,
    which: str,
    compiled: Callable[[str], Any],
    scenario_inputs: Callable[[Any, int], dict[str, torch.Tensor]],
) -> None:
    m = compiled(scenario)
    x = scenario_inputs(m, 3)
    ref_out, ref_J = m.jacobian(x)
    lead = () if which == "()" else (0,)
    out = m.forward(_rows(x, which))
    jout, J = m.jacobian(_rows(x, which))
    for name, want in ref_out.items():
        for got in (out[name], jout[name]):
            assert got.shape == (*lead, *want.shape[1:]), name
            if which == "()":
                _close(got, want[0])
    for o, row in ref_J.items():
        for i, want in row.items():
            got = J[o][i]
            assert got.shape == (*lead, *want.shape[1:]), (o, i)
            if which == "()":
                _close(got, want[0])
