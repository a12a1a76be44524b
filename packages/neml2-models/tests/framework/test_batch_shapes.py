"""Every model case of the test suite at batch shapes ``()``, ``(0,)`` and ``(1,)`` on py-eager,
against the seven-point evaluation (the rule and the case selection: ``_support/batch_shapes``).
neml2-aoti's route sweep runs the same cases compiled."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from batch_shapes import cases, check, points, take, tolerance, trailing_ndim, typed

from neml2.models.common.batch_reduction import BatchReduction
from neml2.models.testing import ModelCase, case_id, load_case_model

CASES = cases(skip=Path(__file__))
F64 = torch.float64


@pytest.mark.parametrize("which", ["()", "(0,)", "(1,)"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_and_jacobian_at_batch_shape(case: ModelCase, which: str) -> None:
    model = load_case_model(case, F64, "cpu")
    if any(isinstance(m, BatchReduction) for m in model.modules()):
        pytest.skip("reduces over batch axes: not pointwise")
    tol = tolerance(case)
    pts = points(model, case)
    ref = model.value(typed(model, case, take(pts, "(7,)")))
    got = model.value(typed(model, case, take(pts, which)))
    assert set(got) == set(ref)
    for name, y in got.items():
        check(y.data, ref[name].data, trailing_ndim(ref[name]), which, f"output '{name}'", tol)
    if not case.derivatives or not model.input_spec:
        return
    _, jref = model.jacobian(typed(model, case, take(pts, "(7,)")))
    _, jgot = model.jacobian(typed(model, case, take(pts, which)))
    for out, row in jref.items():
        for inp, block in row.items():
            g = jgot.get(out, {}).get(inp)
            assert g is not None, f"d {out} / d {inp} missing at batch {which}"
            check(g.data, block.data, trailing_ndim(block), which, f"d {out} / d {inp}", tol)
