"""Model cases at batch shapes ``()``, ``(0,)``, ``(1,)`` and ``(7,)``: the shared machinery of
the py-eager batch-shape test and neml2-aoti's route sweep.

NEML2 v3 evaluates a model on unbatched inputs (batch shape ``()``: one material point without
a batch axis) and on empty batches (a finite-element partition may own no points). The cases
are collected from the ``CASES`` tables of every test module of this suite (the same collection
as the registry-coverage test, so a new model is covered as soon as it has a case). From each
case's inputs (broadcast to their common batch) the first point is taken unbatched, alone in a
batch of one, and cycled with the next points into a batch of seven; the empty batch is the
first zero points. Results at each shape must equal the corresponding rows of the seven-point
evaluation (an output that depends on no batched input may keep batch ``()``), and batch ``()``
in gives batch ``()`` out. A case's sub-batch axes (e.g. slip systems) stay with each point, like
its base axes. Not pointwise, so left to their own tests: models that reduce over batch axes
(``BatchReduction``), and cases whose parameters carry batch axes of their own
(:data:`OWN_BATCH`: their points are fixed by the parameters' batch).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import torch
from suite_modules import suite_modules

from neml2.models.testing import ModelCase, make_inputs

__all__ = [
    "EXPLICIT_TOL",
    "IMPLICIT_TOL",
    "OWN_BATCH",
    "SHAPES",
    "cases",
    "check",
    "points",
    "route_sweep_cases",
    "take",
    "tolerance",
    "trailing_ndim",
    "type_cover",
    "typed",
]

SHAPES = ("()", "(0,)", "(1,)", "(7,)")
OWN_BATCH = {
    "test_elasticity::lie-tensors-coefficient",
    "test_linear_interpolation::batched-tables",
}
#: Explicit models compute each point alone (rounding only); a Newton solve stops when the worst
#: point of its batch converges, so a point solved in another batch may take one iteration more
#: or less: the values then agree to the solvers' tolerances (abs 1e-10, rel 1e-8 by default).
EXPLICIT_TOL, IMPLICIT_TOL = 1e-12, 1e-7


def cases(skip: Path, *, sub_batch: bool = True) -> list[ModelCase]:
    """Every pointwise case of the suite (not in :data:`OWN_BATCH`; with sub-batched inputs
    unless ``sub_batch`` is False), named ``<test module>::<case>``; ``skip`` is the calling
    test module."""
    out: dict[str, ModelCase] = {}
    for path, module in suite_modules(skip=skip):
        for c in getattr(module, "CASES", []):
            # a name with '::' was collected by another table (the batch-shape test's own CASES)
            wanted = sub_batch or not c.sub_batch if isinstance(c, ModelCase) else False
            if wanted and "::" not in c.name:
                out.setdefault(f"{path.stem}::{c.name}", c)
    named = [dataclasses.replace(c, name=key) for key, c in out.items()]
    return [c for c in named if c.name not in OWN_BATCH]


def tolerance(case: ModelCase) -> float:
    """Agreement expected between a point alone and in a batch (see :data:`IMPLICIT_TOL`)."""
    return IMPLICIT_TOL if "Newton" in case.hit else EXPLICIT_TOL


def points(model: Any, case: ModelCase) -> dict[str, torch.Tensor]:
    """Each input as ``(7, *sub, *base)`` float64: the case's points (flattened dynamic batch)
    cycled to seven."""
    values = make_inputs(model, case.inputs, torch.float64, "cpu", case.sub_batch)
    out = {}
    for name, x in values.items():
        nb = x.data.dim() - x.BASE_NDIM - x.sub_batch_ndim
        flat = x.data.reshape((-1, *x.data.shape[nb:]))
        idx = torch.arange(7) % flat.shape[0]
        out[name] = flat[idx].clone()
    return out


def take(pts: dict[str, torch.Tensor], which: str) -> dict[str, torch.Tensor]:
    """The inputs at batch shape ``which`` (one of :data:`SHAPES`)."""
    if which == "()":
        return {n: p[0].clone() for n, p in pts.items()}
    size = {"(0,)": 0, "(1,)": 1, "(7,)": 7}[which]
    return {n: p[:size].clone() for n, p in pts.items()}


def _rows(full: torch.Tensor, base_ndim: int, which: str) -> torch.Tensor:
    """The rows of a seven-point result ``(7 or nothing, *base)`` for batch shape ``which``."""
    if full.dim() == base_ndim:  # depends on no batched input: batch () at every size
        return full
    if which == "()":
        return full[0]
    return full[: {"(0,)": 0, "(1,)": 1, "(7,)": 7}[which]]


def check(
    got: torch.Tensor, ref: torch.Tensor, base_ndim: int, which: str, what: str, tol: float
) -> None:
    """``got`` at batch shape ``which`` equals the rows of the seven-point ``ref``."""
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


def typed(model: Any, case: ModelCase, raw: dict[str, torch.Tensor]) -> dict[str, Any]:
    """``raw`` inputs (from :func:`take`) as the model's wrappers, with the case's sub-batch."""
    return {
        n: model.input_spec[n](v, sub_batch_ndim=case.sub_batch.get(n, 0)) for n, v in raw.items()
    }


def trailing_ndim(w: Any) -> int:
    """Axes of a result after its dynamic batch: sub-batch (e.g. slip systems) and base."""
    from neml2.tensors import Tensor

    dynamic = w.batch_ndim if isinstance(w, Tensor) else len(w.dynamic_batch_shape)
    return int(w.data.dim() - dynamic)


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


def route_sweep_cases(pool: list[ModelCase], sample: tuple[str, ...]) -> list[ModelCase]:
    """The cases a route sweep runs, by ``NEML2_ROUTE_SWEEP``: ``sample`` (default, CI: the
    cases named in ``sample``), ``types`` (:func:`type_cover`: every type of the suite's cases)
    or ``all``."""
    mode = os.environ.get("NEML2_ROUTE_SWEEP", "sample")
    if mode == "all":
        return pool
    if mode == "types":
        return type_cover(pool)
    if mode != "sample":
        raise ValueError(f"NEML2_ROUTE_SWEEP={mode!r}: expected sample, types or all")
    return [c for c in pool if c.name in sample]
