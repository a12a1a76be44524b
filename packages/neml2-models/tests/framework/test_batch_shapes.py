"""Every model case of the test suite at batch shapes ``()``, ``(0,)``, ``(1,)`` and ``(7,)``.

NEML2 v3 evaluates a model on unbatched inputs (batch shape ``()``: one material point without
a batch axis) and on empty batches (a finite-element partition may own no points). The cases
are collected from the ``CASES`` tables of every test module (the same collection as the
registry-coverage test, so a new model is covered as soon as it has a case). From each case's
inputs (broadcast to their common batch) the first point is taken unbatched, alone in a batch of
one, and cycled with the next points into a batch of seven; the empty batch is the first zero
points. Forward values and the Jacobian of each shape must equal the corresponding rows of the
seven-point evaluation (an output that depends on no batched input may keep batch ``()``), and
batch ``()`` in gives batch ``()`` out. Not pointwise, so left to their own tests: cases with
sub-batch axes, models that reduce over batch axes (``BatchReduction``), and cases whose
parameters carry batch axes of their own (``OWN_BATCH``: their points are fixed by the
parameters' batch).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import torch
from suite_modules import suite_modules

from neml2.models.common.batch_reduction import BatchReduction
from neml2.models.testing import ModelCase, case_id, load_case_model, make_inputs


def _cases() -> list[ModelCase]:
    out: dict[str, ModelCase] = {}
    for path, module in suite_modules(skip=Path(__file__)):
        for c in getattr(module, "CASES", []):
            if isinstance(c, ModelCase) and not c.sub_batch:
                out.setdefault(f"{path.stem}::{c.name}", c)
    return [dataclasses.replace(c, name=key) for key, c in out.items()]


OWN_BATCH = {
    "test_elasticity::lie-tensors-coefficient",
    "test_linear_interpolation::batched-tables",
}
CASES = [c for c in _cases() if c.name not in OWN_BATCH]
F64 = torch.float64
#: Explicit models compute each point alone (rounding only); a Newton solve stops when the worst
#: point of its batch converges, so a point solved in another batch may take one iteration more
#: or less: the values then agree to the solvers' tolerances (abs 1e-10, rel 1e-8 by default).
EXPLICIT_TOL, IMPLICIT_TOL = 1e-12, 1e-7


def _points(model: Any, case: ModelCase) -> dict[str, torch.Tensor]:
    """Each input as ``(7, *base)``: the case's points (flattened batch) cycled to seven."""
    typed = make_inputs(model, case.inputs, F64, "cpu")
    out = {}
    for name, x in typed.items():
        nb = x.data.dim() - x.BASE_NDIM
        flat = x.data.reshape((-1, *x.data.shape[nb:]))
        idx = torch.arange(7) % flat.shape[0]
        out[name] = flat[idx].clone()
    return out


def _batch(points: dict[str, torch.Tensor], which: str) -> dict[str, torch.Tensor]:
    if which == "()":
        return {n: p[0].clone() for n, p in points.items()}
    size = {"(0,)": 0, "(1,)": 1, "(7,)": 7}[which]
    return {n: p[:size].clone() for n, p in points.items()}


def _typed(model: Any, raw: dict[str, torch.Tensor]) -> dict[str, Any]:
    return {n: model.input_spec[n](v) for n, v in raw.items()}


def _rows(full: torch.Tensor, base_ndim: int, which: str) -> torch.Tensor:
    """The rows of a seven-point result ``(7 or nothing, *base)`` for batch shape ``which``."""
    if full.dim() == base_ndim:  # depends on no batched input: batch () at every size
        return full
    if which == "()":
        return full[0]
    return full[: {"(0,)": 0, "(1,)": 1, "(7,)": 7}[which]]


def _check(
    got: torch.Tensor, ref: torch.Tensor, base_ndim: int, which: str, what: str, tol: float
) -> None:
    want = _rows(ref, base_ndim, which)
    if which == "()" or ref.dim() == base_ndim:
        assert got.dim() == base_ndim, f"{what}: batch () in gave shape {tuple(got.shape)}"
    assert tuple(got.shape) == tuple(want.shape) or got.dim() == base_ndim, (
        f"{what}: shape {tuple(got.shape)}, expected {tuple(want.shape)}"
    )
    torch.testing.assert_close(
        got.expand_as(want) if got.dim() == base_ndim else got,
        want,
        rtol=tol,
        atol=tol,
        msg=lambda m: f"{what}: {m}",
    )


@pytest.mark.parametrize("which", ["()", "(0,)", "(1,)"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_forward_and_jacobian_at_batch_shape(case: ModelCase, which: str) -> None:
    model = load_case_model(case, F64, "cpu")
    if any(isinstance(m, BatchReduction) for m in model.modules()):
        pytest.skip("reduces over batch axes: not pointwise")
    tol = IMPLICIT_TOL if "Newton" in case.hit else EXPLICIT_TOL
    points = _points(model, case)
    ref = model.value(_typed(model, _batch(points, "(7,)")))
    got = model.value(_typed(model, _batch(points, which)))
    assert set(got) == set(ref)
    for name, y in got.items():
        _check(y.data, ref[name].data, ref[name].BASE_NDIM, which, f"output '{name}'", tol)
    if not case.derivatives or not model.input_spec:
        return
    _, jref = model.jacobian(_typed(model, _batch(points, "(7,)")))
    _, jgot = model.jacobian(_typed(model, _batch(points, which)))
    for out, row in jref.items():
        for inp, block in row.items():
            base_ndim = ref[out].BASE_NDIM + model.input_spec[inp].BASE_NDIM
            g = jgot.get(out, {}).get(inp)
            assert g is not None, f"d {out} / d {inp} missing at batch {which}"
            _check(g.data, block.data, base_ndim, which, f"d {out} / d {inp}", tol)
