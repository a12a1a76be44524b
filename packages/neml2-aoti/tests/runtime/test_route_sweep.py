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

Sub-batched inputs are declared to the compiler as ``[Settings]/example_batch_shape`` would
(``name='(2;sub)'``, the sub-batch shape of the case's points). Their Jacobian blocks are compared
in py-eager's layout (site-diagonal ``(*B, *S, *out_base, *in_base)`` or the full per-site
``(*B, *S_out, *out_base, *S_in, *in_base)``). An ImplicitUpdate compiles no IFT derivative of a
sub-batched unknown or given (the pipeline refuses such ``-d`` pairs, naming them), so such a case
is compiled for its values and checked on them alone.
"""

from __future__ import annotations

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
    route_sweep_cases,
    take,
    tolerance,
    trailing_ndim,
    type_cover,
    typed,
)

import neml2  # noqa: E402
from neml2.aoti import Model  # noqa: E402
from neml2.aoti.compile import CompileError  # noqa: E402
from neml2.aoti.compile._pipeline import compile_model  # noqa: E402
from neml2.models.common.batch_reduction import BatchReduction  # noqa: E402
from neml2.models.testing import ModelCase, case_id  # noqa: E402

#: CI's cases: an explicit composition, SR2 and R2 models, a traction law, a viscoelastic
#: element, an implicit update (Newton graphs), a model without inputs (constant outputs), a
#: finite-volume operator coupling the cells of a sub-batch axis, and the KWN nucleation chain.
SAMPLE = (
    "test_composed::chain",
    "test_elasticity::lie-YOUNGS_MODULUS-POISSONS_RATIO",
    "test_r2_models::mult-it",
    "test_traction_laws::bilinear-penetration",
    "test_viscoelastic_elements::burgers",
    "test_implicit_update::nonlinear",
    "test_viscoplasticity::km-yield-stress",
    "test_cp_leaves::power-law-slip-rule",
    "test_fv_models::fv-upwind-flux",
    "test_kwn_verification::kwn-cnt-nucleation-rate",
)
ALL: list[ModelCase] = cases(skip=Path(__file__))
#: the pipeline's refusal of IFT blocks of sub-batched variables (see the module doc)
SUB_BATCH_DERIVATIVES = "compiles no IFT derivative of a sub-batched"


SELECTED = route_sweep_cases(ALL, SAMPLE)


def test_sample_names_exist() -> None:
    missing = set(SAMPLE) - {c.name for c in ALL}
    assert not missing, f"SAMPLE names cases that no longer exist: {sorted(missing)}"


def test_type_cover_covers_every_type() -> None:
    cover = type_cover(ALL)
    assert set().union(*(c.types for c in cover)) == set().union(*(c.types for c in ALL))
    assert len(cover) < len(ALL)


def sub_batch_declarations(case: ModelCase, pts: dict[str, torch.Tensor]) -> list[str]:
    """``name='(2;sub)'`` for each sub-batched input: its points are ``(7, *sub, *base)``."""
    decl = []
    for name, ns in case.sub_batch.items():
        sub = ",".join(str(n) for n in pts[name].shape[1 : 1 + ns])
        decl.append(f"{name}='(2;{sub})'")
    return decl


def _compiled(case: ModelCase, folder: Path, pts: dict[str, torch.Tensor]) -> tuple[Model, bool]:
    """The compiled case and whether its Jacobian blocks were compiled too."""
    source = folder / "case.i"
    source.write_text(case.hit)
    decl = sub_batch_declarations(case, pts) or None
    derivatives = case.derivatives
    try:
        try:
            compile_model(
                source, model=case.model, output_dir=folder, stub=False,
                derivatives=[":"] if derivatives else [], example_batch_shape=decl,
            )  # fmt: skip
        except CompileError as e:
            if not (derivatives and SUB_BATCH_DERIVATIVES in str(e)):
                raise
            derivatives = False
            compile_model(
                source, model=case.model, output_dir=folder, stub=False, example_batch_shape=decl
            )
    except CompileError as e:
        pytest.skip(f"not compile-supported: {e}")
    return Model(folder / case.model), derivatives


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
    x7 = typed(eager, case, take(pts, "(7,)"))
    ref, jref = eager.jacobian(x7) if case.derivatives else (eager.value(x7), {})
    compiled, with_jacobian = _compiled(case, tmp_path, pts)
    tol = tolerance(case)
    for which in SHAPES:
        x = take(pts, which)
        out = compiled.forward(x)
        assert set(out) == set(ref), which
        for name, y in out.items():
            check(y, ref[name].data, trailing_ndim(ref[name]), which, f"{which} '{name}'", tol)
        if not with_jacobian or not any(jref.values()):  # values only, or no inputs
            continue
        _, J = compiled.jacobian(x)
        for o, row in jref.items():
            for i, block in row.items():
                got: Any = J.get(o, {}).get(i)
                assert got is not None, f"{which}: d {o} / d {i} missing"
                assert list(got.shape[got.dim() - trailing_ndim(block) :]) == (
                    compiled.jacobian_block_shape(o, i)
                ), f"{which} d {o} / d {i}: layout"
                check(got, block.data, trailing_ndim(block), which, f"{which} d {o} / d {i}", tol)
