"""py-aoti at batch shapes ``()``, ``(0,)``, ``(1,)`` and ``(7,)`` for the model cases of
neml2-models' suite: each case is compiled (``neml2-compile -d :``) and its forward values and
Jacobian blocks at every shape must equal py-eager's seven-point evaluation (the rule and the
case selection: neml2-models ``tests/_support/batch_shapes.py``).

Compiling costs 10-40 s per case here, so CI runs :data:`SAMPLE` (one case of each kind of
graph); ``NEML2_ROUTE_SWEEP=types`` (the ``sweep`` nox session) runs the fewest cases that cover
every registered type the suite's cases use (:func:`type_cover`), ``=all`` every case. A case whose
compile request the pipeline refuses (:class:`~neml2.aoti.compile.CompileError`, which names
the reason) is skipped with that reason: it is not compile-supported. Runs in float64 only: the
point is the batch shapes, and the reference cases are float64.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

SUPPORT = Path(__file__).resolve().parents[3] / "neml2-models" / "tests" / "_support"
if not SUPPORT.is_dir():
    pytest.skip("needs neml2-models' test suite (a source checkout)", allow_module_level=True)
sys.path.insert(0, str(SUPPORT))

from batch_shapes import (  # type: ignore[import-not-found]  # noqa: E402
    SHAPES,
    cases,
    check,
    points,
    take,
    tolerance,
    trailing_ndim,
)

import neml2  # noqa: E402
from neml2.aoti import Model  # noqa: E402
from neml2.aoti.compile import CompileError  # noqa: E402
from neml2.aoti.compile._pipeline import compile_model  # noqa: E402
from neml2.models.common.batch_reduction import BatchReduction  # noqa: E402
from neml2.models.testing import ModelCase, case_id  # noqa: E402

#: CI's cases: an explicit composition, SR2 and R2 models, a traction law, a viscoelastic
#: element, an implicit update (Newton graphs), and a model without inputs (constant outputs).
SAMPLE = (
    "test_composed::chain",
    "test_elasticity::lie-YOUNGS_MODULUS-POISSONS_RATIO",
    "test_r2_models::mult-it",
    "test_traction_laws::bilinear-penetration",
    "test_viscoelastic_elements::burgers",
    "test_implicit_update::nonlinear",
    "test_viscoplasticity::km-yield-stress",
)
#: compiled sub-batched inputs need [Settings] declarations the cases do not carry
ALL: list[ModelCase] = cases(skip=Path(__file__), sub_batch=False)


def type_cover(pool: list[ModelCase]) -> list[ModelCase]:
    """Greedy set cover: cases, in suite order, until every type of ``pool`` is covered (each
    pick covers the most uncovered types; ties go to the shorter input)."""
    left = set().union(*(c.types for c in pool))
    picked: list[ModelCase] = []
    while left:
        best = max(pool, key=lambda c: (len(c.types & left), -len(c.hit)))
        picked.append(best)
        left -= best.types
    return [c for c in pool if any(c is p for p in picked)]


def _selected() -> list[ModelCase]:
    mode = os.environ.get("NEML2_ROUTE_SWEEP", "sample")
    if mode == "all":
        return ALL
    if mode == "types":
        return type_cover(ALL)
    if mode != "sample":
        raise ValueError(f"NEML2_ROUTE_SWEEP={mode!r}: expected sample, types or all")
    return [c for c in ALL if c.name in SAMPLE]


SELECTED = _selected()


def test_sample_names_exist() -> None:
    missing = set(SAMPLE) - {c.name for c in ALL}
    assert not missing, f"SAMPLE names cases that no longer exist: {sorted(missing)}"


def test_type_cover_covers_every_type() -> None:
    cover = type_cover(ALL)
    assert set().union(*(c.types for c in cover)) == set().union(*(c.types for c in ALL))
    assert len(cover) < len(ALL)


def _compiled(case: ModelCase, folder: Path) -> Model:
    source = folder / "case.i"
    source.write_text(case.hit)
    try:
        compile_model(
            source, model=case.model, output_dir=folder, stub=False,
            derivatives=[":"] if case.derivatives else [],
        )  # fmt: skip
    except CompileError as e:
        pytest.skip(f"not compile-supported: {e}")
    return Model(folder / case.model)


@pytest.mark.parametrize("case", SELECTED, ids=case_id)
def test_compiled_case_at_every_batch_shape(
    case: ModelCase, dtype: torch.dtype, tmp_path: Path
) -> None:
    if dtype != torch.float64:
        pytest.skip("the batch-shape sweep runs in float64")
    eager = neml2.load_string(case.hit, dtype=torch.float64).get_model(case.model)
    if any(isinstance(m, BatchReduction) for m in eager.modules()):
        pytest.skip("reduces over batch axes: not pointwise")
    pts = points(eager, case)
    typed = {n: eager.input_spec[n](v) for n, v in take(pts, "(7,)").items()}
    ref, jref = eager.jacobian(typed) if case.derivatives else (eager.value(typed), {})
    compiled = _compiled(case, tmp_path)
    tol = tolerance(case)
    for which in SHAPES:
        x = take(pts, which)
        out = compiled.forward(x)
        assert set(out) == set(ref), which
        for name, y in out.items():
            check(y, ref[name].data, trailing_ndim(ref[name]), which, f"{which} '{name}'", tol)
        if not any(jref.values()):  # no inputs: no Jacobian blocks
            continue
        _, J = compiled.jacobian(x)
        for o, row in jref.items():
            for i, block in row.items():
                base_ndim = ref[o].BASE_NDIM + eager.input_spec[i].BASE_NDIM
                got: Any = J.get(o, {}).get(i)
                assert got is not None, f"{which}: d {o} / d {i} missing"
                check(got, block.data, base_ndim, which, f"{which} d {o} / d {i}", tol)
