"""neml2.pyzag: the NEML2PyzagModel factory against autograd, neml2's Newton and FD gradients."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

import neml2

pytest.importorskip("pyzag")
from pyzag import nonlinear  # type: ignore[import-untyped, unused-ignore]

from neml2.pyzag import NEML2BlockJacobian, NEML2PyzagModel
from neml2.solvers import Newton

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "calibration" / "calibrate_perzyna.py"
INPUT = EXAMPLE.with_suffix(".i")


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("calibrate_perzyna_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _model(dtype: torch.dtype, **kw: Any) -> NEML2PyzagModel:
    return NEML2PyzagModel(neml2.load_nonlinear_system(INPUT, "eq_sys", dtype=dtype), **kw)


def _problem(model: NEML2PyzagModel, steps: int, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """Uniaxial ramps to 2 % strain at two rates (plastic flow in both)."""
    rates = torch.tensor([1e-3, 1e-2], dtype=dtype)
    t = torch.linspace(0, 1, steps + 1, dtype=dtype)[:, None] * (0.02 / rates)
    eps = torch.zeros(steps + 1, 2, 6, dtype=dtype)
    eps[..., 0] = t * rates
    eps[..., 1] = eps[..., 2] = -0.3 * eps[..., 0]
    forces = model.assemble_forces({"t": t, "strain": eps})
    y0 = model.assemble_state(
        {
            "stress": torch.zeros(2, 6, dtype=dtype),
            "equivalent_plastic_strain": torch.zeros(2, dtype=dtype),
        }
    )
    return y0, forces


def _solve(model: NEML2PyzagModel, y0: torch.Tensor, forces: torch.Tensor) -> torch.Tensor:
    solver = nonlinear.RecursiveNonlinearEquationSolver(
        model, step_generator=nonlinear.StepGenerator(3)
    )
    with torch.no_grad():
        y: torch.Tensor = nonlinear.solve(solver, y0, forces.shape[0], forces)
    return y


def test_layouts_and_parameters(dtype: torch.dtype) -> None:
    m = _model(dtype)
    assert m.state_names == ("stress", "equivalent_plastic_strain")
    assert (m.nstate, m.nforce, m.lookback) == (7, 7, 1)
    assert set(m.force_names) == {"strain", "t"}
    names = dict(m.named_parameters())
    assert float(names["flow_rate_eta"]) == 150.0
    assert float(names["isoharden_K"]) == 2000.0
    only = _model(dtype, include_parameters=["flow_rate_n"])
    assert [n for n, _ in only.named_parameters()] == ["flow_rate_n"]
    without = _model(dtype, exclude_parameters=["flow_rate_n"])
    assert "flow_rate_n" not in dict(without.named_parameters())


def test_bad_inputs(dtype: torch.dtype) -> None:
    sys_ = neml2.load_nonlinear_system(INPUT, "eq_sys", dtype=dtype)
    with pytest.raises(TypeError, match="ModelNonlinearSystem"):
        NEML2PyzagModel(sys_.model)
    with pytest.raises(ValueError, match="mutually exclusive"):
        NEML2PyzagModel(sys_, include_parameters=[], exclude_parameters=[])
    with pytest.raises(ValueError, match=r"include_parameters.*\['nope'\]"):
        NEML2PyzagModel(sys_, include_parameters=["nope"])
    m = NEML2PyzagModel(sys_)
    with pytest.raises(ValueError, match="lookback must be 1"):
        m.lookback = 2
    with pytest.raises(KeyError, match="'equivalent_plastic_strain'"):
        m.assemble_state({"stress": torch.zeros(2, 6, dtype=dtype)})
    with pytest.raises(ValueError, match="'stress' needs shape"):
        m.assemble_state({"stress": torch.zeros(2, 5, dtype=dtype),
                          "equivalent_plastic_strain": torch.zeros(2, dtype=dtype)})  # fmt: skip


def test_block_jacobian_matches_autograd(dtype: torch.dtype) -> None:
    m = _model(dtype)
    y0, forces = _problem(m, 4, dtype)
    x = _solve(m, y0, forces)
    x = x + 1e-3 * x.abs().max() * torch.rand_like(x)  # off the solution, still plastic
    R, J = m.evaluate_raw(x, [forces])
    assert isinstance(J, NEML2BlockJacobian) and R.shape == (4, 2, 7)
    full = torch.autograd.functional.jacobian(  # type: ignore[no-untyped-call]
        lambda z: m.evaluate_raw(z, [forces])[0], x
    )
    rtol = 1e-8 if dtype == torch.float64 else 1e-3
    for k in range(4):
        for b in range(2):
            scale = full[k, b].abs().max()
            diag, sub = full[k, b, :, k + 1, b], full[k, b, :, k, b]
            torch.testing.assert_close(J.diag[k, b], diag, rtol=rtol, atol=rtol * scale)
            torch.testing.assert_close(J.sub[k, b], sub, rtol=rtol, atol=rtol * scale)


def test_trajectory_matches_neml2_newton(dtype: torch.dtype) -> None:
    m = _model(dtype)
    y0, forces = _problem(m, 5, dtype)
    x = _solve(m, y0, forces)
    sys_ = m.sys
    f = m._unpack(forces, m._f)
    prev = m.unpack_state(y0)
    f64 = dtype == torch.float64
    newton = Newton(abs_tol=1e-12 if f64 else 1e-3, rel_tol=1e-10 if f64 else 1e-5)
    for k in range(1, forces.shape[0]):
        givens = {"t": f["t"][k], "t~1": f["t"][k - 1], "strain": f["strain"][k],
                  "strain~1": f["strain"][k - 1], "stress~1": prev["stress"],
                  "equivalent_plastic_strain~1": prev["equivalent_plastic_strain"]}  # fmt: skip
        sys_.initialize(givens)
        u, _ = newton.solve(sys_, sys_.pack_unknowns(prev))
        prev = {n: w.data for n, w in sys_.unpack_unknowns(u).items()}
        ref = m.assemble_state(prev)
        rtol = 1e-9 if dtype == torch.float64 else 1e-4
        torch.testing.assert_close(x[k], ref, rtol=rtol, atol=rtol * float(ref.abs().max()))


def test_adjoint_gradient_matches_finite_differences() -> None:
    f64 = torch.float64
    m = _model(f64, include_parameters=["flow_rate_eta", "isoharden_K"])
    y0, forces = _problem(m, 4, f64)
    solver = nonlinear.RecursiveNonlinearEquationSolver(
        m, step_generator=nonlinear.StepGenerator(2)
    )
    n = forces.shape[0]

    def loss() -> torch.Tensor:
        y: torch.Tensor = nonlinear.solve_adjoint(solver, y0, n, forces)
        return (y[..., 0] ** 2).sum() + (y[..., 6] * 1e4).sum()

    val = loss()
    val.backward()  # type: ignore[no-untyped-call]
    for name, p in m.named_parameters():
        assert p.grad is not None
        h = 1e-6 * float(p)
        with torch.no_grad():
            p.add_(h)
            up = loss()
            p.sub_(2 * h)
            down = loss()
            p.add_(h)
        fd = (up - down) / (2 * h)
        torch.testing.assert_close(p.grad, fd.reshape(p.grad.shape), rtol=1e-5, atol=0.0,
                                   msg=f"d loss / d {name}")  # fmt: skip


def test_calibration_example_recovers_parameters() -> None:
    res = _example().calibrate(steps=12, epochs=8, perturb=1.3, verbose=True)
    for name, (true, fitted) in res.items():
        assert abs(fitted / true - 1) < 0.01, (name, true, fitted)


def test_compile_pyzag_target_compiles_residual_model() -> None:
    m = _model(torch.float64)
    assert neml2.compile(m) is m
    assert neml2.jit.compiled_models(m) == [m.sys.model]
    assert torch._dynamo.config.cache_size_limit >= 512
    assert torch._dynamo.config.accumulated_cache_size_limit >= 4096
