"""[Solvers] registration: option keys and defaults per the catalog, strictness, errors."""

from __future__ import annotations

from typing import TypeVar

import pytest
import torch

from neml2.factory import InputFile, load_string
from neml2.solvers import (
    GMRES,
    BiCGStab,
    BlockJacobiPreconditioner,
    DenseLU,
    FullPreconditioner,
    JacobiPreconditioner,
    Newton,
    NewtonWithLineSearch,
    NoPreconditioner,
    SchurComplement,
)

T = TypeVar("T")

#: the registry-coverage test reads this; every type is exercised numerically in the sibling
#: test modules (test_newton, test_linesearch, test_direct, test_krylov) and built from HIT here
COVERED_TYPES = {
    "Newton", "NewtonWithLineSearch", "DenseLU", "SchurComplement", "GMRES", "BiCGStab",
    "NoPreconditioner", "JacobiPreconditioner", "BlockJacobiPreconditioner", "FullPreconditioner",
}  # fmt: skip

# (key, default) per type, as catalog.json (section Solvers) lists them
CATALOG: dict[type, list[tuple[str, object]]] = {
    Newton: [
        ("linear_solver", None), ("abs_tol", 1e-10), ("rel_tol", 1e-8), ("max_its", 25),
        ("substep_del_tol", 1e-6),
    ],
    NewtonWithLineSearch: [
        ("linear_solver", None), ("abs_tol", 1e-10), ("rel_tol", 1e-8), ("max_its", 25),
        ("substep_del_tol", 1e-6), ("linesearch_type", "BACKTRACKING"),
        ("max_linesearch_iterations", 10), ("linesearch_cutback", 2.0),
        ("linesearch_stopping_criteria", 1e-3), ("check_negative_criterion", False),
    ],
    DenseLU: [],
    SchurComplement: [
        ("residual_primary_group", 0), ("unknown_primary_group", 0), ("primary_solver", "required"),
        ("schur_solver", "required"),
    ],
    GMRES: [
        ("restart", 40), ("max_its", 1000), ("abs_tol", 0.0), ("rel_tol", 1e-4),
        ("preconditioner", None), ("cache_strategy", "none"), ("cache_max_its", 10),
    ],
    BiCGStab: [
        ("max_its", 1000), ("abs_tol", 0.0), ("rel_tol", 1e-4), ("preconditioner", None),
        ("cache_strategy", "none"), ("cache_max_its", 10),
    ],
    NoPreconditioner: [], JacobiPreconditioner: [], BlockJacobiPreconditioner: [],
    FullPreconditioner: [],
}  # fmt: skip


def test_registered_in_solvers_section() -> None:
    from neml2._registry import registry

    table = registry.types("Solvers")
    assert {name: table[name] for name in COVERED_TYPES} == {c.__name__: c for c in CATALOG}


@pytest.mark.parametrize("cls", list(CATALOG), ids=lambda c: c.__name__)
def test_schema_matches_catalog(cls: type) -> None:
    fields = [f for f in cls.hit.fields]  # type: ignore[attr-defined]
    got = [(f.knob, "required" if f.required else f.default) for f in fields]
    assert got == CATALOG[cls]
    assert cls.SECTION == "Solvers"  # type: ignore[attr-defined]


INPUT = """
[Solvers]
  [lu]
    type = DenseLU
  []
  [newton]
    type = Newton
    linear_solver = lu
    abs_tol = 1e-12
    max_its = 7
  []
  [default_newton]
    type = Newton
  []
  [nls]
    type = NewtonWithLineSearch
    linesearch_type = STRONG_WOLFE
    max_linesearch_iterations = 4
    check_negative_criterion = 1
  []
  [jac]
    type = JacobiPreconditioner
  []
  [gmres]
    type = GMRES
    preconditioner = jac
    restart = 5
    cache_strategy = chord
  []
  [bicg]
    type = BiCGStab
    rel_tol = 1e-9
  []
  [schur]
    type = SchurComplement
    primary_solver = lu
    schur_solver = lu
    unknown_primary_group = 1
    residual_primary_group = 1
  []
  [newton_gmres]
    type = Newton
    linear_solver = gmres
  []
[]
"""


def _solver(f: InputFile, name: str, cls: type[T]) -> T:
    """``[Solvers/name]``, checked to be a ``cls``."""
    solver = f.get_solver(name)
    assert isinstance(solver, cls), f"[Solvers/{name}] is a {type(solver).__name__}"
    return solver


def test_build_from_hit() -> None:
    f = load_string(INPUT)
    newton = _solver(f, "newton", Newton)
    assert type(newton) is Newton and newton.abs_tol == 1e-12 and newton.max_its == 7
    assert newton.linear_solver is f.get_solver("lu")  # shared, cached per block
    assert isinstance(_solver(f, "default_newton", Newton).linear_solver, DenseLU)
    nls = _solver(f, "nls", NewtonWithLineSearch)
    assert (nls.linesearch_type, nls.max_linesearch_iterations) == ("STRONG_WOLFE", 4)
    assert nls.check_negative_criterion == 1
    gm = _solver(f, "gmres", GMRES)
    assert gm.restart == 5 and gm.cache_strategy == "chord"
    assert gm.preconditioner is f.get_solver("jac")
    bicg = _solver(f, "bicg", BiCGStab)
    assert isinstance(bicg.preconditioner, NoPreconditioner)
    assert bicg.rel_tol == 1e-9
    sc = _solver(f, "schur", SchurComplement)
    assert sc.primary_solver is sc.schur_solver is f.get_solver("lu")
    assert (sc.residual_primary_group, sc.unknown_primary_group) == (1, 1)
    assert _solver(f, "newton_gmres", Newton).linear_solver is gm


def test_built_solver_solves() -> None:
    from neml2.es import AssembledMatrix, AssembledVector, AxisLayout

    L = AxisLayout.build([[("x", ())]])

    class Lin:
        def residual(self, u: AssembledVector) -> AssembledVector:
            return AssembledVector(L, [2.0 - 4.0 * u.tensors[0]])

        def jacobian(self, u: AssembledVector) -> AssembledMatrix:
            return AssembledMatrix(L, L, [[torch.full((1, 1, 1), 4.0, dtype=torch.float64)]])

    newton = _solver(load_string(INPUT), "newton", Newton)
    u, res = newton.solve(Lin(), AssembledVector(L, [torch.zeros(1, 1, dtype=torch.float64)]))
    assert u.tensors[0].item() == 0.5 and res.iterations == 1


@pytest.mark.parametrize(
    ("block", "fragment"),
    [
        ("type = Newton\n    bogus = 1", "[Solvers/bad] (type='Newton'): unknown option(s) ['bogus']. Accepted:"),
        ("type = NewtonWithLineSearch\n    check_negative_criterion = true", "check_negative_criterion must be the integer 0 or 1"),
        ("type = NewtonWithLineSearch\n    linesearch_type = WOLFE", "linesearch_type must be one of BACKTRACKING, STRONG_WOLFE, got 'WOLFE'"),
        ("type = Newton\n    linear_solver = nowhere", "No [Solvers/nowhere] found"),
        ("type = Newton\n    linear_solver = jac", "linear_solver must be a linear solver, got JacobiPreconditioner"),
        ("type = Newton\n    max_its = 2.5", "max_its"),
        ("type = GMRES\n    cache_strategy = always", "cache_strategy must be one of none, chord, max_its"),
        ("type = GMRES\n    preconditioner = lu", "preconditioner must be a preconditioner"),
        ("type = SchurComplement\n    primary_solver = lu", "schur_solver"),
        ("type = SchurComplement\n    primary_solver = lu\n    schur_solver = gmres", "schur_solver must be a direct solver"),
        ("type = Newtonn", "Newton"),
    ],
)  # fmt: skip
def test_errors_name_block_and_option(block: str, fragment: str) -> None:
    text = INPUT.replace("[Solvers]\n", f"[Solvers]\n  [bad]\n    {block}\n  []\n", 1)
    f = load_string(text)
    with pytest.raises(Exception) as exc:
        f.get_solver("bad")
    assert fragment in str(exc.value)
    assert "bad" in str(exc.value) or "Newtonn" in str(exc.value)
    # nothing half-built is cached: the same error again, and valid blocks still build
    with pytest.raises(type(exc.value)):
        f.get_solver("bad")
    assert isinstance(f.get_solver("lu"), DenseLU)
