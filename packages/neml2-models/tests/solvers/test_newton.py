"""Newton: closed-form problems, the convergence rules, failures and the masked solve."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from neml2 import log
from neml2.es import AssembledVector, AxisLayout
from neml2.solvers import (
    GMRES,
    ConvergenceError,
    DenseLU,
    FullPreconditioner,
    Newton,
    NewtonWithLineSearch,
    RetCode,
    SchurComplement,
)


def _tols(dtype: torch.dtype) -> dict[str, Any]:
    return {"abs_tol": 1e-5, "rel_tol": 1e-6} if dtype == torch.float32 else {}


def _close(dtype: torch.dtype) -> dict[str, Any]:
    """A few ulps."""
    eps = torch.finfo(dtype).eps
    return {"rtol": 4 * eps, "atol": 4 * eps}


def _machine(dtype: torch.dtype) -> dict[str, Any]:
    """Tolerances that only machine-precision iterates satisfy (scale of |r| ~ 10)."""
    return {"abs_tol": 40 * torch.finfo(dtype).eps, "rel_tol": 0.0}


def test_backward_euler_closed_form(
    problems: dict[str, Any], scalar_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    xn = torch.linspace(-3, 5, 11, dtype=dtype, device=device).unsqueeze(-1)
    k = torch.logspace(-2, 2, 11, dtype=dtype, device=device).unsqueeze(-1)
    p = problems["BackwardEuler"](xn, k, 0.1)
    u, res = Newton(**_machine(dtype)).solve(
        p, AssembledVector(scalar_layout, [torch.zeros_like(xn)])
    )
    assert res.ret == RetCode.SUCCESS and res.iterations == 1  # linear: one exact step
    torch.testing.assert_close(u.tensors[0], xn / (1 + 0.1 * k), **_close(dtype))


def test_cubic_closed_form_batched(
    problems: dict[str, Any], scalar_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    c = torch.linspace(-20, 20, 41, dtype=dtype, device=device).unsqueeze(-1)
    p = problems["Cubic"](c)
    u, res = Newton(**_machine(dtype)).solve(
        p, AssembledVector(scalar_layout, [torch.zeros_like(c)])
    )
    assert res.iterations > 1
    torch.testing.assert_close(u.tensors[0], p.exact().to(dtype), **_close(dtype))
    assert p.jacobian_calls == res.iterations and p.residual_calls == res.iterations + 1
    assert not any(p.grad_enabled)  # runs under no_grad


def test_converged_at_guess(
    problems: dict[str, Any], scalar_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    xn = torch.tensor([[1.0], [2.0]], dtype=dtype, device=device)
    p = problems["BackwardEuler"](xn, torch.zeros_like(xn), 0.1)
    u0 = AssembledVector(scalar_layout, [xn.clone()])
    u, res = Newton().solve(p, u0)
    assert res.iterations == 0 and torch.equal(u.tensors[0], xn)


def test_abs_and_rel_per_element(problems: dict[str, Any]) -> None:
    # element 0 meets only abs_tol, element 1 only rel_tol -> converged at iteration 1
    p = problems["Scripted"]([[1e-3, 1e6], [5e-11, 1e-3]])
    u0 = AssembledVector(AxisLayout.build([[("x", ())]]), [torch.zeros(2, 1, dtype=torch.float64)])
    _, res = Newton().solve(p, u0)
    assert res.iterations == 1


def test_one_bad_element_keeps_iterating(
    problems: dict[str, Any], scalar_layout: AxisLayout
) -> None:
    rows = [[1.0, 1.0], [1e-12, 0.5], [1e-12, 0.1], [1e-12, 1e-12]]
    p = problems["Scripted"](rows)
    _, res = Newton().solve(
        p, AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)])
    )
    assert res.iterations == 3 and p.calls == 4


@pytest.mark.parametrize("max_its", [1, 2, 5])
def test_max_its_minus_one_updates_and_message(
    problems: dict[str, Any], scalar_layout: AxisLayout, max_its: int
) -> None:
    p = problems["Scripted"]([[2.0, 0.5]] + [[3.5e-3, 1e-12]] * 10)
    with pytest.raises(ConvergenceError) as exc:
        Newton(max_its=max_its).solve(
            p, AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)])
        )
    assert p.calls == max_its  # the guess + (max_its - 1) updates
    err = exc.value
    assert isinstance(err, RuntimeError) and err.ret == RetCode.MAXITER
    max_r = "3.500000e-03" if max_its > 1 else "2.000000e+00"
    assert str(err) == (
        f"Newton failed to converge in {max_its} iterations (max |R| = {max_r}, "
        "|R0| = 2.000000e+00, atol = 1.000000e-10, rtol = 1.000000e-08)"
    )
    assert err.converged_mask is None and err.unknowns is None


@pytest.mark.parametrize("bad_at", [0, 2])
def test_non_finite_residual_diverges_immediately(
    problems: dict[str, Any], scalar_layout: AxisLayout, bad_at: int
) -> None:
    rows = [[1.0, 1.0], [0.5, 0.5], [0.25, 0.25], [1e-20, 1e-20]]
    rows[bad_at] = [0.1, float("nan") if bad_at else float("inf")]
    p = problems["Scripted"](rows)
    with pytest.raises(
        ConvergenceError, match=rf"^Newton diverged at iter {bad_at} \(non-finite residual"
    ) as exc:
        Newton().solve(p, AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)]))
    assert exc.value.ret == RetCode.FAILURE and p.calls == bad_at + 1


def test_singular_jacobian_reports_divergence(
    problems: dict[str, Any], scalar_layout: AxisLayout
) -> None:
    # r = x³ + x - c at ... use r(x) = x² (A = 2x = 0 at x = 0) via Cubic with c chosen: x³ + x - c
    base: Any = problems["Cubic"]

    class Flat(base):  # type: ignore[misc]
        def jacobian(self, u: AssembledVector) -> Any:
            A = super().jacobian(u)
            A.blocks[0][0].zero_()
            return A

    with pytest.raises(ConvergenceError, match="diverged at iter 1"):
        Newton().solve(
            Flat(torch.ones(2, 1, dtype=torch.float64)),
            AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)]),
        )


def test_option_errors() -> None:
    with pytest.raises(ValueError, match="Newton: abs_tol must be >= 0"):
        Newton(abs_tol=-1.0)
    with pytest.raises(ValueError, match="Newton: max_its must be >= 1"):
        Newton(max_its=0)
    with pytest.raises(TypeError, match="linear_solver must be a linear solver, got str"):
        Newton(linear_solver="DenseLU")  # type: ignore[arg-type]
    assert isinstance(Newton().linear_solver, DenseLU)


# ----------------------------------------------------------------------------- masked solve
def _masked_setup(
    problems: dict[str, Any], scalar_layout: AxisLayout, dtype: torch.dtype, device: torch.device
) -> tuple[Any, torch.Tensor, AssembledVector]:
    c = torch.tensor([0.0, 0.3, 2.0, 50.0, 1e4, 7.0], dtype=dtype, device=device).unsqueeze(-1)
    u0 = AssembledVector(
        scalar_layout,
        [torch.tensor([[0.0], [0.3], [1.0], [0.0], [0.0], [1.9]], dtype=dtype, device=device)],
    )
    return problems["Cubic"], c, u0


@pytest.mark.parametrize("kind", [Newton, NewtonWithLineSearch])
def test_masked_rows_bit_identical_to_solving_alone(
    kind: type[Newton],
    problems: dict[str, Any],
    scalar_layout: AxisLayout,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    Cubic, c, u0 = _masked_setup(problems, scalar_layout, dtype, device)
    solver = kind(max_its=6, **_tols(dtype))
    batch = solver.solve_masked(Cubic(c), u0)
    assert batch.converged.dtype == torch.bool and batch.converged.shape == (6,)
    assert bool(batch.converged[0]) and not bool(batch.converged[4])  # c = 1e4 needs many steps
    for i in range(6):
        alone = solver.solve_masked(
            Cubic(c[i : i + 1]), AssembledVector(scalar_layout, [u0.tensors[0][i : i + 1]])
        )
        assert torch.equal(alone.u.tensors[0], batch.u.tensors[0][i : i + 1]), i
        assert torch.equal(alone.converged, batch.converged[i : i + 1]), i


def test_masked_freezes_converged_rows(
    problems: dict[str, Any], scalar_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    Cubic, c, u0 = _masked_setup(problems, scalar_layout, dtype, device)
    res = Newton(max_its=6).solve_masked(Cubic(c), u0)
    # row 0 (c = 0, x0 = 0) converged at the guess: never moved
    assert res.u.tensors[0][0].item() == 0.0
    # rows converged by the step-gated rule have tiny residuals
    conv = res.converged
    r = res.u.tensors[0] ** 3 + res.u.tensors[0] - c
    assert bool((r[conv].abs() < (1e-3 if dtype == torch.float32 else 1e-9)).all())


def test_masked_never_throws_on_non_finite(
    problems: dict[str, Any], scalar_layout: AxisLayout
) -> None:
    p = problems["Scripted"]([[1.0, 1.0], [float("nan"), 1e-12]])
    res = Newton().solve_masked(
        p, AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)])
    )
    assert res.converged.tolist() == [False, True] and res.iterations == 1


@pytest.mark.parametrize("flag", ["1", " TRUE ", "yes"])
def test_capture_solve_failure_attaches_mask_and_unknowns(
    problems: dict[str, Any], scalar_layout: AxisLayout, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    monkeypatch.setenv("NEML2_CAPTURE_SOLVE_FAILURE", flag)
    Cubic, c, u0 = _masked_setup(problems, scalar_layout, torch.float64, torch.device("cpu"))
    solver = Newton(max_its=6)
    with pytest.raises(ConvergenceError) as exc:
        solver.solve(Cubic(c), u0)
    ref = solver.solve_masked(Cubic(c), u0)
    assert exc.value.converged_mask is not None and isinstance(exc.value.unknowns, AssembledVector)
    assert torch.equal(exc.value.converged_mask, ref.converged)
    assert torch.equal(exc.value.unknowns.tensors[0], ref.u.tensors[0])


@pytest.mark.parametrize("flag", ["", "0", "off", " No "])
def test_capture_off(
    problems: dict[str, Any], scalar_layout: AxisLayout, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    monkeypatch.setenv("NEML2_CAPTURE_SOLVE_FAILURE", flag)
    Cubic, c, u0 = _masked_setup(problems, scalar_layout, torch.float64, torch.device("cpu"))
    with pytest.raises(ConvergenceError) as exc:
        Newton(max_its=6).solve(Cubic(c), u0)
    assert exc.value.converged_mask is None and exc.value.unknowns is None


# ------------------------------------------------------------------------ other linear solvers
def test_two_group_problem_schur_and_matrix_free_gmres(
    problems: dict[str, Any], two_group_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    g = torch.Generator().manual_seed(0)
    a = torch.randn(5, 3, generator=g, dtype=torch.float64).to(device, dtype)
    c = torch.randn(5, 2, generator=g, dtype=torch.float64).to(device, dtype)
    u0 = AssembledVector(
        two_group_layout,
        [
            torch.zeros(5, 3, 1, dtype=dtype, device=device),
            torch.zeros(5, 2, dtype=dtype, device=device),
        ],
    )
    p1 = problems["Coupled"](a, c)
    u1, _r1 = Newton(SchurComplement(DenseLU(), DenseLU()), **_tols(dtype)).solve(p1, u0)
    assert (p1.residual(u1).norm() < (1e-5 if dtype == torch.float32 else 1e-10)).all()
    p2 = problems["Coupled"](a, c)
    krylov = GMRES(rel_tol=1e-6 if dtype == torch.float32 else 1e-12)
    u2, _ = Newton(krylov, **_tols(dtype)).solve(p2, u0)
    assert p2.jacobian_calls == 0  # matrix-free: the problem's matvec only
    tol: dict[str, Any] = (
        {"rtol": 1e-4, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-12}
    )
    torch.testing.assert_close(u2.flat(), u1.flat(), **tol)
    p3 = problems["Coupled"](a, c)
    u3, _r3 = Newton(
        GMRES(preconditioner=FullPreconditioner(), cache_strategy="chord"), **_tols(dtype)
    ).solve(p3, u0)
    assert p3.jacobian_calls == 1  # chord: assembled once for the preconditioner
    torch.testing.assert_close(u3.flat(), u1.flat(), **tol)


# ------------------------------------------------------------------------------------ logging
@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Captured log lines, independent of the caller's NEML2_LOGS."""
    monkeypatch.delenv(log.ENV_VAR, raising=False)
    log.reset()
    got: list[str] = []
    log.set_sink(lambda level, line: got.append(line))
    yield got
    monkeypatch.undo()
    log.reset()


def test_trace_info(problems: dict[str, Any], scalar_layout: AxisLayout, lines: list[str]) -> None:
    log.set_default_level("newton", "info")
    p = problems["Scripted"]([[1.0], [1e-3], [1e-12]])
    Newton().solve(p, AssembledVector(scalar_layout, [torch.zeros(1, 1, dtype=torch.float64)]))
    assert lines == [
        "[neml2:newton ][info] ---- begin newton solve ----",
        "[neml2:newton ][info] converged (iters=2, reason=both)",
        "[neml2:newton ][info] ---- end newton solve ----",
    ]
    lines.clear()
    Newton().solve(
        problems["Scripted"]([[1e-11]]),
        AssembledVector(scalar_layout, [torch.zeros(1, 1, dtype=torch.float64)]),
    )
    assert lines[1] == "[neml2:newton ][info] converged at predictor (iters=0, reason=abs_tol)"
    lines.clear()
    with pytest.raises(ConvergenceError):
        Newton(max_its=2).solve(
            problems["Scripted"]([[1.0], [0.5]]),
            AssembledVector(scalar_layout, [torch.zeros(1, 1, dtype=torch.float64)]),
        )
    assert lines[1:] == [
        "[neml2:newton ][info] NOT converged (iters=1, max |R| = 5.000000e-01, |R0| = 1.000000e+00)",
        "[neml2:newton ][info] ---- end newton solve ----",
    ]
    lines.clear()
    with pytest.raises(ConvergenceError):
        Newton().solve(
            problems["Scripted"]([[1.0], [float("inf")]]),
            AssembledVector(scalar_layout, [torch.zeros(1, 1, dtype=torch.float64)]),
        )
    assert lines[1] == "[neml2:newton ][info] diverged at iter 1 (non-finite residual)"


def test_trace_debug_and_collect_log(
    problems: dict[str, Any], scalar_layout: AxisLayout, lines: list[str]
) -> None:
    log.set_default_level("newton", "debug")
    p = problems["Scripted"]([[1.0, 2.0], [1e-3, 0.0], [1e-12, 0.0]])
    u0 = AssembledVector(scalar_layout, [torch.zeros(2, 1, dtype=torch.float64)])
    Newton().solve(p, u0)
    assert lines == [
        "[neml2:newton ][info] ---- begin newton solve ----",
        "[neml2:newton ][dbg ] ITERATION   0, |R| = 2.000000e+00, |R0| = 2.000000e+00",
        "[neml2:newton ][dbg ] ITERATION   1, |R| = 1.000000e-03, |R0| = 2.000000e+00",
        "[neml2:newton ][dbg ] ITERATION   2, |R| = 1.000000e-12, |R0| = 2.000000e+00",
        "[neml2:newton ][info] converged (iters=2, reason=both)",
        "[neml2:newton ][info] ---- end newton solve ----",
    ]
    emitted = list(lines)
    lines.clear()
    p = problems["Scripted"]([[1.0, 2.0], [1e-3, 0.0], [1e-12, 0.0]])
    _, res = Newton(collect_log=True).solve(p, u0)
    assert lines == [] and res.log == emitted


def test_combined_problem_one_call_per_iterate(
    problems: dict[str, Any], scalar_layout: AxisLayout, device: torch.device, dtype: torch.dtype
) -> None:
    base: Any = problems["Cubic"]

    class Combined(base):  # type: ignore[misc]
        combined_calls = 0

        def residual_and_jacobian(self, u: AssembledVector) -> Any:
            self.combined_calls += 1
            return self.residual(u), self.jacobian(u)

    c = torch.linspace(-5, 5, 9, dtype=dtype, device=device).unsqueeze(-1)
    p = Combined(c)
    u, res = Newton(**_tols(dtype)).solve(p, AssembledVector(scalar_layout, [torch.zeros_like(c)]))
    assert p.combined_calls == res.iterations + 1
    assert p.residual_calls == p.jacobian_calls == p.combined_calls  # nothing evaluated separately
    ref, ref_res = Newton(**_tols(dtype)).solve(
        problems["Cubic"](c), AssembledVector(scalar_layout, [torch.zeros_like(c)])
    )
    assert torch.equal(u.tensors[0], ref.tensors[0]) and res.iterations == ref_res.iterations


def test_one_host_sync_per_iteration(
    problems: dict[str, Any],
    scalar_layout: AxisLayout,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[str],
) -> None:
    syncs = {"n": 0}
    for name in ("item", "tolist", "__bool__", "__float__"):
        original = getattr(torch.Tensor, name)

        def counted(self: torch.Tensor, *a: Any, _o: Any = original, **k: Any) -> Any:
            syncs["n"] += 1
            return _o(self, *a, **k)

        monkeypatch.setattr(torch.Tensor, name, counted)
    c = torch.linspace(-5, 5, 9, dtype=torch.float64).unsqueeze(-1)
    _, res = Newton().solve(
        problems["Cubic"](c), AssembledVector(scalar_layout, [torch.zeros_like(c)])
    )
    assert res.iterations > 2
    assert syncs["n"] == res.iterations + 1  # the guess + one per update
