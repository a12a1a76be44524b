"""NonlinearSystem: layouts, one-call assembly of b = -r, A = dr/du, B = dr/dg, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from narrow import narrow
from scipy.optimize import fsolve  # type: ignore[import-untyped]

from neml2.es import AssembledVector
from neml2.es.nonlinear_system import ModelNonlinearSystem, NonlinearSystem
from neml2.factory import load_string
from neml2.models.common.implicit_update import ImplicitUpdate

COVERED_TYPES = {"NonlinearSystem"}

RNG = np.random.default_rng(3)

# SR2 s and Scalar e, coupled and nonlinear:
#   s_rate = -2 s + e d,   e_rate = -e + 0.1 vm(s),   backward-Euler residuals for both
MODEL = """
[Models]
  [vm]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 's'
    invariant = 'vm'
  []
  [srate]
    type = SR2LinearCombination
    from = 's d'
    weights = '-2 e'
    to = 's_rate'
  []
  [erate]
    type = ScalarLinearCombination
    from = 'e vm'
    weights = '-1 0.1'
    to = 'e_rate'
  []
  [rs]
    type = SR2BackwardEulerTimeIntegration
    variable = 's'
  []
  [re]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'e'
  []
  [residual]
    type = ComposedModel
    models = 'vm srate erate rs re'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = '${unknowns}'
    ${extra}
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = '${linear}'
    abs_tol = 1e-13
    rel_tol = 1e-13
  []
  [lu]
    type = DenseLU
  []
  [schur]
    type = SchurComplement
    primary_solver = 'lu'
    schur_solver = 'lu'
  []
[]
[Models]
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
  []
[]
"""


def _hit(unknowns: str = "s e", extra: str = "", linear: str = "lu") -> str:
    return (
        MODEL.replace("${unknowns}", unknowns).replace("${extra}", extra)
        .replace("${linear}", linear)
    )  # fmt: skip


def _state(n: int, dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    raw = {
        "s": RNG.normal(size=(n, 6)),
        "e": RNG.uniform(0.1, 1.0, n),
        "d": RNG.normal(size=(n, 6)),
        "s~1": RNG.normal(size=(n, 6)),
        "e~1": RNG.uniform(0.1, 1.0, n),
        "t": np.array(0.4),
        "t~1": RNG.uniform(0.0, 0.2, n),
    }
    return {k: torch.as_tensor(v, dtype=dtype) for k, v in raw.items()}


def _system(unknowns: str = "s e", extra: str = "") -> ModelNonlinearSystem:
    sys_ = load_string(_hit(unknowns, extra)).get_equation_system("eq")
    assert isinstance(sys_, ModelNonlinearSystem)
    return sys_


def test_names_and_layouts() -> None:
    sys_ = _system("s; e")
    assert NonlinearSystem is ModelNonlinearSystem
    assert sys_.unknown_names == ("s", "e")
    assert sys_.residual_names == ("s_residual", "e_residual")
    assert set(sys_.given_names) == {"d", "s~1", "e~1", "t", "t~1"}
    assert [g.names for g in sys_.unknown_layout.groups] == [("s",), ("e",)]
    assert [g.width for g in sys_.residual_layout.groups] == [6, 1]
    assert sys_.given_layout().flat_size == 6 + 6 + 1 + 1 + 1


def _dense_reference(
    sys_: ModelNonlinearSystem, x: dict[str, torch.Tensor]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """-r, dr/du, dr/dg by torch.autograd.functional.jacobian on flattened variables."""
    model = sys_.model
    n = x["e"].shape[0]
    names = list(model.input_spec)
    u_names, g_names = list(sys_.unknown_names), list(sys_.given_names)

    def flat(d: dict[str, torch.Tensor], keys: list[str]) -> torch.Tensor:
        parts = [d[k].expand(n, *model.input_spec[k].BASE_SHAPE).reshape(n, -1) for k in keys]
        return torch.cat(parts, dim=-1)

    def res(u: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        vals: dict[str, torch.Tensor] = {}
        for keys, vec in ((u_names, u), (g_names, g)):
            off = 0
            for k in keys:
                shape = model.input_spec[k].BASE_SHAPE
                size = int(np.prod(shape)) if shape else 1
                vals[k] = vec[..., off : off + size].reshape(n, *shape)
                off += size
        outs = model.value({k: vals[k] for k in names})
        return torch.cat([outs[r].data.reshape(n, -1) for r in sys_.residual_names], dim=-1)

    u0, g0 = flat(x, u_names), flat(x, g_names)
    Ja, Jb = torch.autograd.functional.jacobian(res, (u0, g0))  # type: ignore[no-untyped-call]
    idx = torch.arange(n)
    return -res(u0, g0), Ja[idx, :, idx, :], Jb[idx, :, idx, :]


@pytest.mark.parametrize(
    ("unknowns_from", "givens_from"),
    [(1, 1), (10**9, 10**9), (10**9, 1)],
    ids=["per_variable", "per_group", "grouped_unknowns_per_variable_givens"],
)
def test_assemble_matches_autograd(unknowns_from: int, givens_from: int) -> None:
    sys_ = _system("s e")
    sys_.PER_VARIABLE_SEEDS_FROM = unknowns_from  # type: ignore[misc]
    sys_.PER_VARIABLE_GIVEN_SEEDS_FROM = givens_from  # type: ignore[misc]
    x = _state(5)
    sys_.initialize({g: x[g] for g in sys_.given_names})
    u = sys_.pack_unknowns({k: x[k] for k in sys_.unknown_names})
    calls = sys_.residual_evaluations
    A, B, b = sys_.assemble(u, need_A=True, need_B=True, need_b=True)
    assert sys_.residual_evaluations == calls + 1  # one model call for A, B and b
    assert A is not None and B is not None and b is not None
    nb, ja, jb = _dense_reference(sys_, x)
    torch.testing.assert_close(b.flat(), nb, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(A.to_dense(), ja, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(B.to_dense(), jb, rtol=1e-12, atol=1e-12)
    # differentiable (the parameters require grad): assembled; plain eager (no autograd): A comes
    # as its nonzero tangent blocks, what DenseLU solves in place
    assert A.parts is None
    with torch.no_grad():
        A, B, _ = sys_.assemble(u, need_A=True, need_B=True, need_b=False)
    assert A is not None and A.parts is not None
    # plain eager B: one contiguous (*B, m, n) block, the layout a right-hand side is solved in
    # (in place, with solve_matrix's overwrite_b)
    assert B is not None and B.blocks[0][0].is_contiguous()
    torch.testing.assert_close(B.to_dense(), jb, rtol=1e-12, atol=1e-12)
    placed = torch.zeros_like(ja)
    for p in A.parts:
        rows, cols = p.value.shape[-2:]
        view = placed[..., p.row : p.row + rows, p.col : p.col + cols]
        assert not view.any()  # disjoint
        view.copy_(p.value)
    torch.testing.assert_close(placed, ja, rtol=1e-12, atol=1e-12)
    # matrix-free product agrees with the assembled matrix
    v = AssembledVector.from_flat(sys_.unknown_layout, torch.randn(5, 7, dtype=torch.float64))
    torch.testing.assert_close(
        sys_.matvec(u, v).flat(), (ja @ v.flat().unsqueeze(-1)).squeeze(-1), rtol=1e-12, atol=1e-12
    )
    # residual() alone and a subset of givens
    torch.testing.assert_close(sys_.residual(u).flat(), nb, rtol=0, atol=0)
    _, Bt, _ = sys_.assemble(u, need_A=False, need_B=True, need_b=False, givens=["t"])
    assert Bt is not None
    col = list(sys_.given_layout().names).index("t")
    offs = sys_.given_layout().groups[0].offsets
    torch.testing.assert_close(Bt.to_dense(), jb[..., offs[col] : offs[col + 1]], rtol=1e-12,
                               atol=1e-12)  # fmt: skip


def test_grouped_assembly_matches_single_group() -> None:
    x = _state(3)
    one, two = _system("s e"), _system("s; e", "structure = 'dense dense'")
    mats = []
    for sys_ in (one, two):
        sys_.initialize({g: x[g] for g in sys_.given_names})
        u = sys_.pack_unknowns({k: x[k] for k in sys_.unknown_names})
        A, _, _ = sys_.assemble(u)
        assert A is not None
        mats.append(A.to_dense())
    assert len(two.jacobian(two.pack_unknowns(x)).blocks) == 2
    torch.testing.assert_close(mats[0], mats[1], rtol=0, atol=0)


def _reference_solution(x: dict[str, torch.Tensor]) -> np.ndarray:
    """Independent scipy solve of the backward-Euler equations per batch element."""
    out = []
    n = x["e~1"].shape[0]
    for i in range(n):
        d = x["d"][i].numpy()
        sn, en = x["s~1"][i].numpy(), float(x["e~1"][i])
        dt = float(x["t"] - x["t~1"][i])

        def f(z: np.ndarray, d: np.ndarray = d, sn: np.ndarray = sn, en: float = en,
              dt: float = dt) -> np.ndarray:  # fmt: skip
            s, e = z[:6], z[6]
            dev = s.copy()
            dev[:3] -= s[:3].sum() / 3
            vm = np.sqrt(1.5 * dev @ dev + np.finfo(float).eps)
            rs = s - sn - dt * (-2 * s + e * d)
            re = e - en - dt * (-e + 0.1 * vm)
            return np.concatenate([rs, [re]])

        out.append(fsolve(f, np.concatenate([sn, [en]]), xtol=1e-12))
    return np.array(out)


@pytest.mark.parametrize(
    ("unknowns", "extra", "linear"),
    [("s e", "", "lu"), ("s; e", "structure = 'block dense'", "schur")],
)
def test_solve_matches_reference(unknowns: str, extra: str, linear: str) -> None:
    model = narrow(load_string(_hit(unknowns, extra, linear)).get_model("model"), ImplicitUpdate)
    x = _state(4)
    with torch.no_grad():
        out = model.value({k: x[k] for k in model.input_spec})
    got = torch.cat([out["s"].data, out["e"].data.unsqueeze(-1)], dim=-1).numpy()
    np.testing.assert_allclose(got, _reference_solution(x), rtol=1e-10, atol=1e-12)
    assert model.last_result.iterations > 1


def test_multigroup_ift_vs_finite_differences() -> None:
    """Two groups + SchurComplement: jacobian() (forward IFT) vs central differences."""
    model = load_string(_hit("s; e", "", "schur")).get_model("model")
    x = {k: v for k, v in _state(2).items() if k in model.input_spec}
    _, J = model.jacobian(x)
    h = 1e-6
    for g, comp in (("d", 2), ("s~1", 0), ("e~1", None), ("t~1", None)):
        xp, xm = dict(x), dict(x)
        xp[g], xm[g] = x[g].clone(), x[g].clone()
        if comp is None:
            xp[g] += h
            xm[g] -= h
        else:
            xp[g][..., comp] += h
            xm[g][..., comp] -= h
        with torch.no_grad():
            op, om = model.value(xp), model.value(xm)
        for o in ("s", "e"):
            fd = (op[o].data - om[o].data) / (2 * h)
            got = J[o][g].data if comp is None else J[o][g].data[..., comp]
            torch.testing.assert_close(got, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("unknowns", "extra", "match"),
    [
        ("s q", "", r"\[EquationSystems/eq\].*'unknowns'.*'q' is not an input"),
        ("s e", "residuals = 's_residual'", r"'residuals'.*do not match"),
        ("s e", "residuals = 's_residual nope'", r"'residuals'.*'nope' is not an output"),
        ("s; e", "structure = 'dense'", r"'structure'.*1 entries"),
        ("s e", "structure = 'sparse'", r"'structure'.*'sparse'"),
        ("s s", "", r"'unknowns'.*duplicate"),
        ("s e", "tolerance = 1", r"unknown option"),
    ],
)
def test_bad_options(unknowns: str, extra: str, match: str) -> None:
    with pytest.raises((ValueError, KeyError, TypeError), match=match):
        load_string(_hit(unknowns, extra)).get_equation_system("eq")
