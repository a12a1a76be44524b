"""py-jit (``neml2.compile``) on the model cases of this suite: values and every Jacobian block at
a batch of seven points equal py-eager's (the cases and points: ``_support/batch_shapes.py``;
the tolerance: :func:`batch_shapes.tolerance`, round-off for explicit models).

Compiling costs seconds per case, so CI runs :data:`SAMPLE` (one case of each physics group
outside solid mechanics, with list inputs, sub-batched cells and bins, and an SR2 input);
``NEML2_ROUTE_SWEEP=types`` (the ``sweep`` nox session) runs the fewest cases that cover every
registered type the suite's cases use, ``=all`` every case. Runs in float64 only: the reference
cases are float64, and the point is the route, not the dtype.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from batch_shapes import (
    cases,
    check,
    points,
    route_sweep_cases,
    take,
    tolerance,
    trailing_ndim,
    typed,
)

import neml2
from neml2.models.common.batch_reduction import BatchReduction
from neml2.models.testing import ModelCase, case_id, load_case_model

SAMPLE = (
    "test_chem_rate_laws::chem-avrami-promoted",
    "test_fv_models::fv-upwind-flux",
    "test_kwn_models::kwn-volume-fraction-promoted",
    "test_kwn_verification::kwn-cnt-nucleation-rate",
    "test_pff_models::pff-energy-none",
    "test_porous_capillary_pressure::porous-vg",
)
ALL = cases(skip=Path(__file__))
SELECTED = route_sweep_cases(ALL, SAMPLE)
F64 = torch.float64


def test_sample_names_exist() -> None:
    missing = set(SAMPLE) - {c.name for c in ALL}
    assert not missing, f"SAMPLE names cases that no longer exist: {sorted(missing)}"


@pytest.mark.parametrize("case", SELECTED, ids=case_id)
def test_compiled_case_equals_eager(case: ModelCase, dtype: torch.dtype) -> None:
    if dtype != F64:
        pytest.skip("the py-jit sweep runs in float64")
    eager = load_case_model(case, F64, "cpu")
    if any(isinstance(m, BatchReduction) for m in eager.modules()):
        pytest.skip("reduces over batch axes: not pointwise")
    compiled = neml2.compile(load_case_model(case, F64, "cpu"))
    x = typed(eager, case, take(points(eager, case), "(7,)"))
    tol = tolerance(case)
    if case.derivatives and eager.input_spec:
        ref, jref = eager.jacobian(x)
        got, jgot = compiled.jacobian(x)
    else:
        ref, jref, got, jgot = eager.value(x), {}, compiled.value(x), {}
    assert set(got) == set(ref)
    for name, y in got.items():
        check(y.data, ref[name].data, trailing_ndim(ref[name]), "(7,)", f"'{name}'", tol)
    for out, row in jref.items():
        for inp, block in row.items():
            g = jgot.get(out, {}).get(inp)
            assert g is not None, f"d {out} / d {inp} missing"
            check(g.data, block.data, trailing_ndim(block), "(7,)", f"d {out} / d {inp}", tol)
