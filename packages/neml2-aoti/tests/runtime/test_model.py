"""``neml2.aoti.Model`` surface: ordering, promoted parameters, solver settings, errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from neml2.aoti import ConvergenceError, FatalError, Model
from runtime._scenarios import relax_for_float32

Inputs = Callable[[Model, int], dict[str, torch.Tensor]]


@pytest.fixture
def elastic(artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype) -> Model:
    return Model(artifact("elasticity"), device, dtype)


def test_properties(elastic: Model, device: torch.device, dtype: torch.dtype) -> None:
    assert elastic.input_names == ["strain"]
    assert elastic.output_names == ["stress"]
    assert elastic.input_base_shapes == [[6]]
    assert elastic.output_base_shapes == [[6]]
    assert elastic.input_types == ["SR2"] and elastic.output_types == ["SR2"]
    assert elastic.device == device and elastic.dtype == dtype
    assert elastic.parameter_base_shapes == {"model.E": []}
    assert set(elastic.named_parameters()) == {"model.E"}
    assert ("stress", "strain") in elastic.derivatives
    assert "model.E" in repr(elastic) or str(elastic.artifact_root) in repr(elastic)


def test_defaults_are_cpu_float64(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    """Not torch's ambient defaults (``docs/design/runtime.md``, "Python face")."""
    if (device.type, dtype) != ("cpu", torch.float64):
        pytest.skip("loads the cpu/float64 leaf, compiled for the cpu/float64 run")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float32)
    try:
        m = Model(artifact("elasticity"))
    finally:
        torch.set_default_dtype(old)
    assert m.device == torch.device("cpu") and m.dtype == torch.float64


def test_strings_for_device_and_dtype(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    m = Model(str(artifact("elasticity")), str(device), str(dtype).removeprefix("torch."))
    assert m.device == device and m.dtype == dtype


def test_in_place_parameter_edit_is_seen(elastic: Model, scenario_inputs: Inputs) -> None:
    """Stress is linear in E: doubling E in place doubles the stress."""
    x = scenario_inputs(elastic, 4)
    before = elastic.forward(x)["stress"]
    elastic.named_parameters()["model.E"].mul_(2.0)
    after = elastic.forward(x)["stress"]
    torch.testing.assert_close(after, 2.0 * before)


def test_dict_assignment_does_not_reach_runtime(elastic: Model, scenario_inputs: Inputs) -> None:
    x = scenario_inputs(elastic, 4)
    before = elastic.forward(x)["stress"]
    params = elastic.named_parameters()
    params["model.E"] = params["model.E"] * 3.0
    assert torch.equal(elastic.forward(x)["stress"], before)


def test_set_parameter_batched(elastic: Model, scenario_inputs: Inputs) -> None:
    """A (B,) value makes E per batch entry: row b scales by factor b."""
    x = scenario_inputs(elastic, 4)
    before = elastic.forward(x)["stress"]
    E = elastic.named_parameters()["model.E"].clone()
    factors = torch.arange(1, 5, dtype=E.dtype, device=E.device)
    elastic.set_parameter("model.E", E * factors)
    after = elastic.forward(x)["stress"]
    torch.testing.assert_close(after, before * factors[:, None])


def test_param_override_is_per_call(elastic: Model, scenario_inputs: Inputs) -> None:
    x = scenario_inputs(elastic, 4)
    before = elastic.forward(x)["stress"]
    E = elastic.named_parameters()["model.E"]
    once = elastic.forward(x, {"model.E": E * 0.5})["stress"]
    torch.testing.assert_close(once, 0.5 * before)
    assert torch.equal(elastic.forward(x)["stress"], before)


def test_param_jacobian_is_stress_over_E(elastic: Model, scenario_inputs: Inputs) -> None:
    """d stress / d E = stress / E (linearity)."""
    x = scenario_inputs(elastic, 4)
    stress = elastic.forward(x)["stress"]
    E = elastic.named_parameters()["model.E"]
    outputs, J = elastic.param_jacobian(x)  # NEML2 v3's (outputs, P) pair
    assert list(outputs) == elastic.output_names
    torch.testing.assert_close(outputs["stress"], stress)
    torch.testing.assert_close(J["stress"]["model.E"], stress / E)


def test_param_vjp_sums_over_batch(elastic: Model, scenario_inputs: Inputs) -> None:
    x = scenario_inputs(elastic, 4)
    stress = elastic.forward(x)["stress"]
    E = elastic.named_parameters()["model.E"]
    w = torch.ones_like(stress)
    g = elastic.param_vjp(x, {"stress": w})
    torch.testing.assert_close(g["model.E"], (stress / E).sum())


def test_jacobian_vs_finite_differences(elastic: Model, scenario_inputs: Inputs) -> None:
    """An independent check of the compiled block: central differences of forward."""
    x = scenario_inputs(elastic, 2)
    _, J = elastic.jacobian(x)
    block = J["stress"]["strain"].expand(2, 6, 6)
    h = 1e-6 if x["strain"].dtype == torch.float64 else 1e-2
    for k in range(6):
        e = torch.zeros_like(x["strain"])
        e[:, k] = h
        up = elastic.forward({"strain": x["strain"] + e})["stress"]
        dn = elastic.forward({"strain": x["strain"] - e})["stress"]
        fd = (up - dn) / (2 * h)
        torch.testing.assert_close(block[:, :, k], fd, rtol=1e-4, atol=1e-4 * float(fd.abs().max()))


def test_jvp_missing_tangent_is_zero(elastic: Model, scenario_inputs: Inputs) -> None:
    x = scenario_inputs(elastic, 3)
    _, d = elastic.jvp(x, {})
    assert not d["stress"].any()


def test_solver_config_roundtrip(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    m = Model(artifact("chaboche"), device, dtype)
    m.set_solver_config(atol=1e-9, miters=7)
    cfg = m.solver_config
    assert cfg["atol"] == 1e-9 and cfg["miters"] == 7
    m.set_solver_config(rtol=1e-7)
    assert m.solver_config["atol"] == 1e-9 and m.solver_config["rtol"] == 1e-7


def test_impossible_tolerance_is_convergence_error(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    """A recoverable failure raises the one shared ConvergenceError (a RuntimeError)."""
    m = Model(artifact("chaboche"), device, dtype)
    m.set_solver_config(atol=0.0, rtol=0.0, miters=3)
    with pytest.raises(ConvergenceError) as e:
        m.forward(scenario_inputs(m, 4))
    assert isinstance(e.value, RuntimeError) and not isinstance(e.value, FatalError)
    solvers = pytest.importorskip("neml2.solvers")
    assert isinstance(e.value, solvers.ConvergenceError)


def test_derivatives_need_compiled_pairs(
    artifact: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    """chaboche is compiled with -d stress:strain only: no parameter pairs."""
    m = relax_for_float32(Model(artifact("chaboche"), device, dtype))
    assert m.parameter_derivatives == [] and m.named_parameters() == {}
    with pytest.raises(FatalError, match="-d"):
        m.param_jacobian(scenario_inputs(m, 2))


def test_implicit_param_jacobian_vs_finite_differences(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    """dx/da of the scalar implicit update (x - x~1 = dt a x^3) by central differences of a."""
    m = relax_for_float32(Model(artifact("scalar_implicit"), device, dtype))
    name = "implicit_rate.rate.scaling"
    assert ("x", name) in m.parameter_derivatives
    x_old = torch.linspace(0.2, 0.8, 4, device=device, dtype=dtype)
    x = {
        "x": x_old.clone(),
        "x~1": x_old,
        "t": torch.ones(4, device=device, dtype=dtype),
        "t~1": torch.zeros(4, device=device, dtype=dtype),
    }
    a = m.named_parameters()[name]
    y, P = m.param_jacobian(x)
    torch.testing.assert_close(y["x"], m.forward(x)["x"])
    J = P["x"][name]
    h = 1e-6 if dtype == torch.float64 else 1e-2
    up = m.forward(x, {name: a + h})["x"]
    dn = m.forward(x, {name: a - h})["x"]
    fd = (up - dn) / (2 * h)
    rtol = 1e-5 if dtype == torch.float64 else 1e-2
    torch.testing.assert_close(J, fd, rtol=rtol, atol=rtol * float(fd.abs().max()))
    # closed form of the implicit function theorem: dx/da = dt x^3 / (1 - 3 dt a x^2)
    xs = m.forward(x)["x"]
    torch.testing.assert_close(J, xs**3 / (1 - 3 * a * xs**2), rtol=rtol, atol=0.0)
    w = torch.linspace(1.0, 2.0, 4, device=device, dtype=dtype)
    g = m.param_vjp(x, {"x": w})[name]
    torch.testing.assert_close(g, (w * J).sum(), rtol=rtol, atol=0.0)
