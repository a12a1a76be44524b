"""Every model case of the test suite at batch shapes ``()``, ``(0,)`` and ``(1,)`` on py-eager,
against the seven-point evaluation (the rule and the case selection: ``_support/batch_shapes``).
neml2-aoti's route sweep runs the same cases compiled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from batch_shapes import cases, check, points, take, tolerance

from neml2.models.common.batch_reduction import BatchReduction
from neml2.models.testing import ModelCase, case_id, load_case_model
from neml2.tensors import Tensor

CASES = cases(skip=Path(__file__))
F64 = torch.float64


def _typed(model: Any, raw: dict[str, torch.Tensor]) -> dict[str, Any]:
    return {n: model.input_spec[n](v) for n, v in raw.items()}


def _trailing(w: Any) -> int:
    """Axes after the dynamic batch: sub-batch (e.g. slip systems) and base."""
    dynamic = w.batch_ndim if isinstance(w, Tensor) else len(w.dynamic_batch_shape)
    return int(w.data.dim() - dynamic)


@pytest.mark.parametrize("which", ["()", "(0,)", "(1,)"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_and_jacobian_at_batch_shape(case: ModelCase, which: str) -> None:
    model = load_case_model(case, F64, "cpu")
    if any(isinstance(m, BatchReduction) for m in model.modules()):
        pytest.skip("reduces over batch axes: not pointwise")
    tol = tolerance(case)
    pts = points(model, case)
    ref = model.value(_typed(model, take(pts, "(7,)")))
    got = model.value(_typed(model, take(pts, which)))
    assert set(got) == set(ref)
    for name, y in got.items():
        check(y.data, ref[name].data, _trailing(ref[name]), which, f"output '{name}'", tol)
    if not case.derivatives or not model.input_spec:
        return
    _, jref = model.jacobian(_typed(model, take(pts, "(7,)")))
    _, jgot = model.jacobian(_typed(model, take(pts, which)))
    for out, row in jref.items():
        for inp, block in row.items():
            g = jgot.get(out, {}).get(inp)
            assert g is not None, f"d {out} / d {inp} missing at batch {which}"
            check(g.data, block.data, _trailing(block), which, f"d {out} / d {inp}", tol)
