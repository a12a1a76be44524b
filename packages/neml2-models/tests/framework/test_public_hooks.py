"""The public hooks other distributions build on (neml2-aoti's compiler, kernel providers):
HIT block and option of a parameter, its tensor type, the guess inputs of an ImplicitUpdate,
capture-ready assembly of an equation system, and native kernels found by entry point."""

from __future__ import annotations

import types
from typing import Any

import pytest
import torch

import neml2
from neml2 import _native
from neml2.models import RouteModel
from neml2.models.model import Model
from neml2.tensors import SR2, Scalar

F64 = torch.float64

ELASTICITY = """
[Models]
  [elastic]
    type = LinearIsotropicElasticity
    coefficients = '1e3 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
"""

# Backward Euler of dx/dt = a x^3 + b y, dy/dt = -y: two unknowns, one group
IMPLICIT = """
[Models]
  [xa]
    type = CopyScalar
    from = 'x'
    to = 'xa'
  []
  [xb]
    type = CopyScalar
    from = 'x'
    to = 'xb'
  []
  [x3]
    type = ScalarMultiplication
    from = 'x xa xb'
    to = 'x3'
    scaling = -2.0
  []
  [rate]
    type = ScalarLinearCombination
    from = 'x3 y'
    to = 'x_rate'
    weights = '1 0.5'
  []
  [decay]
    type = ScalarLinearCombination
    from = 'y'
    to = 'y_rate'
    weights = '-1'
  []
  [integrate_x]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'x'
  []
  [integrate_y]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'y'
  []
  [residual]
    type = ComposedModel
    models = 'xa xb x3 rate decay integrate_x integrate_y'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'x y'
  []
[]
[Solvers]
  [newton]
    type = Newton
  []
[]
"""


def test_hit_block_option_and_type_of_a_parameter() -> None:
    model = neml2.load_string(ELASTICITY).get_model("elastic")
    assert model.hit_name == "elastic"
    stored = [n for n, _ in model.named_parameters()]
    assert stored and all(model.parameter_option(n) == "coefficients" for n in stored)
    assert all(model.parameter_type(n) is Scalar for n in stored)
    assert model.parameter_option("no_such_parameter") is None
    assert model.parameter_type("no_such_parameter") is None


def test_a_model_built_in_code_has_no_block() -> None:
    class Plain(Model):
        pass

    model = Plain()
    model.register_typed_parameter("k", Scalar(torch.tensor(2.0, dtype=F64)))
    assert model.hit_name is None
    assert model.parameter_option("k") is None  # declared by code, not by an option
    assert model.parameter_type("k") is Scalar


def test_cleared_value_caches_give_the_same_values() -> None:
    model = neml2.load_string(ELASTICITY).get_model("elastic")
    strain = SR2(torch.rand(4, 6, dtype=F64))
    before = model.value({"strain": strain})["stress"].data
    model.clear_value_caches()
    torch.testing.assert_close(
        model.value({"strain": strain})["stress"].data, before, rtol=0, atol=0
    )


def _implicit() -> Any:
    return neml2.load_string(IMPLICIT).get_model("model")


def test_guess_inputs_are_the_unknowns_without_a_predictor() -> None:
    assert _implicit().guess_inputs == ("x", "y")


def test_capture_ready_assembly_gives_the_same_system() -> None:
    """After ``prepare_for_capture`` (per-variable seeds at any batch, caches dropped) the
    residual, ``A`` and ``B`` are those of the default assembly, and ``A`` is the Jacobian of
    the residual by autograd."""
    system = _implicit().system
    b = 3
    givens = {n: Scalar(torch.rand(b, dtype=F64) + 0.5) for n in system.given_names}
    system.initialize(givens)
    u = system.pack_unknowns({n: Scalar(torch.rand(b, dtype=F64)) for n in system.unknown_names})
    A0, B0, r0 = system.assemble(u, need_B=True)
    assert system.cached_jacobian(u) is A0
    system.prepare_for_capture()
    assert system.cached_jacobian(u) is None
    A1, B1, r1 = system.assemble(u, need_B=True)
    assert A0 is not None and A1 is not None and B0 is not None and B1 is not None
    assert r0 is not None and r1 is not None
    torch.testing.assert_close(A1.to_dense(), A0.to_dense(), rtol=1e-14, atol=0)
    torch.testing.assert_close(B1.to_dense(), B0.to_dense(), rtol=1e-14, atol=0)
    torch.testing.assert_close(r1.flat(), r0.flat(), rtol=1e-14, atol=0)

    flat = u.flat().detach()

    def minus_residual(x: torch.Tensor) -> torch.Tensor:
        v = type(u).from_flat(system.unknown_layout, x)
        out: torch.Tensor = system.assemble(v, need_A=False)[2].flat()
        return out

    jac = torch.autograd.functional.jacobian(minus_residual, flat)  # type: ignore[no-untyped-call]
    # (b, n, b, n): each point's residual depends on its own unknowns only
    per_point = torch.stack([jac[i, :, i, :] for i in range(b)])
    torch.testing.assert_close(-A1.to_dense(), per_point, rtol=1e-12, atol=1e-14)


class _EntryPoint:
    def __init__(self, name: str, module: types.ModuleType | None) -> None:
        self.name = name
        self.module = module

    def load(self) -> types.ModuleType:
        if self.module is None:
            raise ImportError(f"{self.name}: built for another torch")
        return self.module


def test_kernels_come_from_the_entry_point_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first module (by entry point name) that has a kernel provides it; a module that fails
    to import is skipped; a kernel no module has is None (ATen instead)."""
    first = types.ModuleType("first")
    second = types.ModuleType("second")
    first.sum_of_products = lambda terms: torch.zeros(1)  # type: ignore[attr-defined]
    second.sum_of_products = lambda terms: torch.ones(1)  # type: ignore[attr-defined]
    second.workspace_empty = lambda shape, dtype: torch.empty(shape, dtype=dtype)  # type: ignore[attr-defined]
    found = [_EntryPoint("c", second), _EntryPoint("a", None), _EntryPoint("b", first)]

    def entry_points(*, group: str) -> list[_EntryPoint]:
        assert group == _native.KERNELS_GROUP
        return found

    monkeypatch.setattr("neml2._native.metadata.entry_points", entry_points)
    monkeypatch.setattr(_native, "_MODULES", None)
    monkeypatch.setattr(_native, "_FOUND", {})
    assert _native.kernel_modules() == [first, second]
    assert _native.native("sum_of_products") is first.sum_of_products
    assert _native.native("workspace_empty") is second.workspace_empty
    assert _native.native("batched_dense_solve") is None


def _is_route_model(model: Model) -> RouteModel:
    """Static check (mypy): py-eager models have the call surface every Python route offers."""
    return model


def test_loaded_models_are_route_models() -> None:
    """``load_model`` returns a :class:`RouteModel`, with every member of the protocol."""
    model = neml2.load_string(ELASTICITY).get_model("elastic")
    assert isinstance(model, Model) and isinstance(model, RouteModel)
    x = {"strain": SR2(torch.tensor([1e-3, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=F64))}
    out = model.value(x)
    assert set(out) == set(model.output_spec) and model.call_by_name(x).keys() == out.keys()
    _, J = model.jacobian(x)
    _, dy = model.jvp(x, {"strain": torch.tensor([1.0, 0, 0, 0, 0, 0], dtype=F64)})
    Jss = J["stress"]["strain"]
    torch.testing.assert_close(dy["stress"].data, Jss.data[..., :, 0], rtol=1e-14, atol=0)
    assert dict(model.parameter_base_shapes()).keys() == {n for n, _ in model.named_parameters()}
