"""The benchmark Chaboche ImplicitUpdate (scenarios/chaboche.i): solve, IFT vs finite differences."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from neml2._registry import registry
from neml2.factory import load_input

INPUT = Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i"
RNG = np.random.default_rng(5)


@pytest.fixture(scope="module")
def model() -> Any:
    return load_input(INPUT, dtype=torch.float64).get_model("model")


def _state(n: int = 3) -> dict[str, torch.Tensor]:
    e = np.zeros((n, 6))
    e[:, 0] = np.linspace(0.004, 0.008, n)
    e[:, 1:3] = -0.3 * e[:, :1]
    raw = {
        "strain": e,
        "strain~1": 0.5 * e,
        "t": np.array(2.0),
        "t~1": np.array(1.0),
        "equivalent_plastic_strain~1": np.linspace(0.001, 0.002, n),
        "X1~1": RNG.normal(size=(n, 6)) * 5,
        "X2~1": RNG.normal(size=(n, 6)) * 5,
        "stress~1": RNG.normal(size=(n, 6)) * 50,
    }
    return {k: torch.as_tensor(v, dtype=torch.float64) for k, v in raw.items()}


def test_inputs_outputs(model: Any) -> None:
    m = model
    assert list(m.output_spec) == ["stress", "equivalent_plastic_strain", "X1", "X2"]
    assert "stress" not in m.input_spec  # predicted from stress~1
    assert registry.get("EquationSystems", "NonlinearSystem") is not None


def test_solution_is_a_root_and_jacobian_matches_fd(model: Any) -> None:
    m = model
    x = _state()
    with torch.no_grad():
        out = m.value(x)
    assert m.last_result.iterations >= 2  # plastic: nonlinear
    system = m.system
    rm = system.model
    with torch.no_grad():
        r = rm.value({**{k: v for k, v in x.items() if k in rm.input_spec}, **out})
    for name in system.residual_names:
        assert float(r[name].data.abs().max()) < 1e-6
    _, J = m.jacobian(x)
    h = 1e-7
    for comp in (0, 1, 3):
        xp, xm = dict(x), dict(x)
        xp["strain"], xm["strain"] = x["strain"].clone(), x["strain"].clone()
        xp["strain"][:, comp] += h
        xm["strain"][:, comp] -= h
        with torch.no_grad():
            fd = (m.value(xp)["stress"].data - m.value(xm)["stress"].data) / (2 * h)
        got = J["stress"]["strain"].data[..., comp]
        torch.testing.assert_close(got, fd, rtol=1e-5, atol=1e-3 * float(fd.abs().max()))


def test_reverse_mode_matches_forward_and_parameter_fd(model: Any) -> None:
    m = model
    x = _state(2)
    w = torch.as_tensor(RNG.normal(size=(2, 6)), dtype=torch.float64)
    _, J = m.jacobian(x)
    strain = x["strain"].clone().requires_grad_(True)
    params = dict(m.named_parameters())
    E = params["implicit_rate.elasticity.E"]
    out = m.value({**x, "strain": strain})["stress"].data
    ds, dE = torch.autograd.grad((out * w).sum(), [strain, E])
    want = torch.einsum("bi,bij->bj", w, J["stress"]["strain"].data)
    torch.testing.assert_close(ds, want, rtol=1e-9, atol=1e-9 * float(want.abs().max()))
    h = 1e-3 * float(E.detach().abs().max())
    vals = []
    with torch.no_grad():
        for s in (h, -h):
            E.add_(s)
            vals.append((m.value(x)["stress"].data * w).sum())
            E.sub_(s)
    fd = (vals[0] - vals[1]) / (2 * h)
    torch.testing.assert_close(dE.sum(), fd, rtol=1e-5, atol=0)


def test_native_workspace_reuses_memory_and_changes_no_value(
    model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Newton solve runs in a native workspace: from the second iteration on, the tangent
    sums and projections write into memory freed by the previous one, and every value is the
    one computed without the workspace (same kernels, so bit for bit)."""
    aoti = pytest.importorskip("neml2.aoti._aoti")
    import neml2._native as _native
    import neml2.solvers._newton as newton

    x = _state(2000)  # tangents (19, 2000, 6): above the workspace output threshold
    kept: list[int] = []
    update = newton.Newton._update

    def spy(self: Any, *args: Any) -> Any:
        kept.append(aoti.workspace_free_bytes())  # freed by the iteration just finished
        return update(self, *args)

    with monkeypatch.context() as m:
        m.setattr(newton.Newton, "_update", spy)
        with torch.no_grad():
            pooled = model.value(x)
        pooled_jac = model.jacobian(x)[1]
    assert kept and max(kept) >= 19 * 2000 * 6 * 8
    assert aoti.workspace_free_bytes() == 0  # no scope outside the solve
    workspace: Any = _native._WORKSPACES[model.solver]
    assert 0 < workspace.free_bytes <= aoti.DEFAULT_RETAINED_WORKSPACE_BYTES  # for the next solve
    model.solver.release_workspace()
    assert workspace.free_bytes == 0 and model.solver not in _native._WORKSPACES
    with monkeypatch.context() as m:
        m.setattr(newton, "native_workspace", lambda owner=None: contextlib.nullcontext())
        with torch.no_grad():
            plain = model.value(x)
        plain_jac = model.jacobian(x)[1]
    for name, value in plain.items():
        assert torch.equal(pooled[name].data, value.data), name
    for out, row in plain_jac.items():
        for inp, block in row.items():
            assert torch.equal(pooled_jac[out][inp].data, block.data), (out, inp)
