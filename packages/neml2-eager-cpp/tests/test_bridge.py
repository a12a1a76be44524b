"""``neml2.eager._bridge.EagerModel``: the Python side of ``neml2::eager::Model``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import FatalError
from neml2.eager._bridge import EagerModel
from neml2.eager._canonical import canonical_outputs
from neml2.models.boundary import VarInfo, boundary_variables
from neml2.tensors import SR2

#: the shared scenario inputs (``scenarios/``: the workspace conftest.py exports the folder)
SCENARIOS = Path(os.environ["NEML2_SCENARIOS"])
#: the inputs only these tests use
INPUTS = Path(__file__).resolve().parent / "cpp" / "inputs"


def _close(got: torch.Tensor, want: torch.Tensor, dtype: torch.dtype) -> None:
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    torch.testing.assert_close(got, want, rtol=tol, atol=tol)


@pytest.fixture
def elasticity(device: torch.device, dtype: torch.dtype) -> EagerModel:
    return EagerModel(str(SCENARIOS / "elasticity.i"), "model", str(device), dtype)


def _implicit(device: torch.device, dtype: torch.dtype) -> EagerModel:
    # float32 cannot reach the scenario's Newton tolerances (abs_tol 1e-12, rel_tol 1e-10)
    loose = ["Solvers/newton/abs_tol:=1e-5", "Solvers/newton/rel_tol:=1e-5"]
    overrides = loose if dtype == torch.float32 else []
    return EagerModel(str(SCENARIOS / "scalar_implicit.i"), "model", str(device), dtype, overrides)


def _implicit_inputs(device: torch.device, dtype: torch.dtype, b: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    return {
        "x": torch.ones(b, dtype=dtype, device=device),
        "x~1": (0.5 + 1.5 * torch.rand(b, generator=g, dtype=torch.float64)).to(device, dtype),
        "t": torch.tensor(0.6, dtype=dtype, device=device),
        "t~1": torch.zeros(b, dtype=dtype, device=device),
    }


def test_boundary_is_the_shared_helper() -> None:
    path = SCENARIOS / "sub_batch_implicit.i"
    bridge = EagerModel(str(path), "model")
    factory = neml2.load_input(path)
    ins, outs = boundary_variables(factory.get_model("model"), factory.settings)
    assert bridge.input_variables() == [
        (i.name, i.var_type, list(i.base_shape), list(i.sub_batch_shape)) for i in ins
    ]
    assert bridge.output_variables() == [
        (i.name, i.var_type, list(i.base_shape), list(i.sub_batch_shape)) for i in outs
    ]
    assert bridge.input_variables()[1] == ("x~1", "Scalar", [], [3])


def test_forward_matches_py_eager(
    elasticity: EagerModel, device: torch.device, dtype: torch.dtype
) -> None:
    model = neml2.load_model(SCENARIOS / "elasticity.i", "model", device=device, dtype=dtype)
    e = 1e-3 * torch.randn(4, 6, dtype=torch.float64).to(device, dtype)
    want = model(SR2(e)).data
    got = elasticity.forward({"strain": e})["stress"]
    assert got.dtype == dtype and got.device == device
    _close(got, want, dtype)
    # batch-less in, batch-less out (NEML2 v3, every route); an empty batch stays empty
    torch.testing.assert_close(elasticity.forward({"strain": e[0]})["stress"], want[0])
    _, J = elasticity.jacobian({"strain": e[0]})
    assert J["stress"]["strain"].shape == (6, 6)
    assert elasticity.forward({"strain": e[:0]})["stress"].shape == (0, 6)


def test_jvp_is_the_jacobian_contraction(device: torch.device, dtype: torch.dtype) -> None:
    m = _implicit(device, dtype)
    x = _implicit_inputs(device, dtype, 3)
    dx = {n: torch.randn(v.shape, dtype=torch.float64).to(device, dtype) for n, v in x.items()}
    _, J = m.jacobian(x)
    _, dy = m.jvp(x, dx)
    want = sum(J["x"][n] * dx[n] for n in x)
    assert isinstance(want, torch.Tensor)
    _close(dy["x"], want, dtype)
    # a missing tangent counts as zero
    _, dy1 = m.jvp(x, {"x~1": dx["x~1"]})
    _close(dy1["x"], J["x"]["x~1"] * dx["x~1"], dtype)


def test_implicit_jacobian_by_finite_differences() -> None:
    m = EagerModel(str(SCENARIOS / "scalar_implicit.i"), "model")
    x = _implicit_inputs(torch.device("cpu"), torch.float64, 3)
    _, J = m.jacobian(x)
    h = 1e-6
    for n in ("x~1", "t"):
        up = m.forward({**x, n: x[n] + h})["x"]
        down = m.forward({**x, n: x[n] - h})["x"]
        torch.testing.assert_close(J["x"][n], (up - down) / (2 * h), rtol=1e-6, atol=1e-9)


def test_parameter_names_and_copies(elasticity: EagerModel) -> None:
    assert elasticity.parameter_base_shapes() == {"model.E": [], "model.nu": []}
    p = elasticity.named_parameters()
    p["model.E"].fill_(1.0)
    assert elasticity.named_parameters()["model.E"].item() == pytest.approx(1e3)
    implicit = EagerModel(str(SCENARIOS / "scalar_implicit.i"), "model")
    assert list(implicit.named_parameters()) == ["implicit_rate.rate.scaling"]
    with pytest.raises(ValueError, match=r"unknown parameter 'E'; parameters: \['model.E'"):
        elasticity.set_parameter("E", torch.tensor(1.0))


def test_param_vjp_contracts_param_jacobian(
    elasticity: EagerModel, device: torch.device, dtype: torch.dtype
) -> None:
    e = 1e-3 * torch.randn(3, 6, dtype=torch.float64).to(device, dtype)
    w = torch.randn(3, 6, dtype=torch.float64).to(device, dtype)
    y, J = elasticity.param_jacobian({"strain": e})  # NEML2 v3's (outputs, P)
    _close(y["stress"], elasticity.forward({"strain": e})["stress"], dtype)
    g = elasticity.param_vjp({"strain": e}, {"stress": w})
    for n in ("model.E", "model.nu"):
        _close(g[n], (w * J["stress"][n]).sum(), dtype)
    with pytest.raises(ValueError, match=r"cotangents for unknown output\(s\) \['strain'\]"):
        elasticity.param_vjp({"strain": e}, {"strain": w})


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (
            torch.zeros(4, 1, dtype=torch.float64),
            FatalError,
            r"input 'strain': non-canonical shape \[4, 1\], expected trailing base shape \[6\]",
        ),
        (
            torch.zeros(4, 6, dtype=torch.float32),
            FatalError,
            r"input 'strain' has dtype Float but the model expects Double \(inputs are never cast",
        ),
        ([0.0] * 6, TypeError, r"inputs\['strain'\] is a list, expected a torch\.Tensor"),
    ],
)
def test_bad_inputs(value: object, error: type[Exception], match: str) -> None:
    """The checks are libneml2's canonicalize_inputs (the compiled routes' own)."""
    m = EagerModel(str(SCENARIOS / "elasticity.i"), "model")
    with pytest.raises(error, match=match):
        m.forward({"strain": value})  # type: ignore[dict-item]


def test_bad_tangents() -> None:
    m = EagerModel(str(SCENARIOS / "elasticity.i"), "model")
    e = torch.zeros(4, 6, dtype=torch.float64)
    with pytest.raises(FatalError, match=r"tangent 'strain': non-canonical shape \[4, 5\]"):
        m.jvp({"strain": e}, {"strain": torch.zeros(4, 5, dtype=torch.float64)})
    with pytest.raises(FatalError, match=r"unexpected tangent 'stress'; the model's inputs are: "):
        m.jvp({"strain": e}, {"stress": e})
    with pytest.raises(FatalError, match=r"batch shapes \[4\], \[3\] do not broadcast"):
        m.jvp({"strain": e}, {"strain": torch.zeros(3, 6, dtype=torch.float64)})
    # a batch-less tangent broadcasts to the inputs' batch
    y, dy = m.jvp({"strain": e}, {"strain": torch.ones(6, dtype=torch.float64)})
    assert y["stress"].shape == (4, 6) and dy["stress"].shape == (4, 6)


def test_missing_unknown_and_unbroadcastable_inputs() -> None:
    m = EagerModel(str(SCENARIOS / "scalar_implicit.i"), "model")
    x = _implicit_inputs(torch.device("cpu"), torch.float64, 3)
    with pytest.raises(FatalError, match=r"missing input 't~1'; the model's inputs are: "):
        m.forward({k: v for k, v in x.items() if k != "t~1"})
    with pytest.raises(FatalError, match=r"unexpected input 'y'; the model's inputs are: "):
        m.forward({**x, "y": x["t"]})
    with pytest.raises(FatalError, match=r"input 't~1': batch shape \[2\] does not broadcast "
                                         r"with the batch shape \[3\] of the preceding inputs"):  # fmt: skip
        m.forward({**x, "t~1": torch.zeros(2, dtype=torch.float64)})
    with pytest.raises(FileNotFoundError, match=r"input file '.*nothing\.i' does not exist"):
        EagerModel(str(INPUTS / "nothing.i"), "model")


def test_sub_batch_trailing_shape_is_checked() -> None:
    """A declared sub-batch is part of the trailing axes: 4 sites where 3 are declared."""
    m = EagerModel(str(SCENARIOS / "sub_batch_implicit.i"), "model")
    names = [n for n, *_ in m.input_variables()]
    x = {n: torch.ones(2, 3, dtype=torch.float64) for n in names}
    x["x~1"] = torch.ones(2, 4, dtype=torch.float64)
    with pytest.raises(FatalError, match=r"input 'x~1': non-canonical shape \[2, 4\], expected "
                                         r"trailing shape \[3\] \(sub-batch shape \[3\], base "
                                         r"shape \[\]"):  # fmt: skip
        m.forward(x)


def test_undeclared_output_sub_batch_is_explained() -> None:
    info = VarInfo("stress", "SR2", (6,), ())
    y = SR2(torch.zeros(2, 3, 6, dtype=torch.float64), sub_batch_ndim=1)
    with pytest.raises(
        ValueError, match=r"output 'stress' has sub-batch shape \[3\].*declares \[\]"
    ):
        canonical_outputs("output", {"stress": y}, [info], (2,))
    declared = VarInfo("stress", "SR2", (6,), (3,))
    out = canonical_outputs("output", {"stress": y}, [declared], (4, 2))
    assert out["stress"].shape == (4, 2, 3, 6)


def test_load_imports_extensions_and_keeps_the_natural_device(tmp_path: Path) -> None:
    """``load`` (v3's ``--load`` list) runs before the input file is read; ``device=None`` keeps
    the device the model is built on."""
    path, ext = str(INPUTS / "user_ext.i"), str(INPUTS / "user_ext.py")
    m = EagerModel(path, "model", None, torch.float64, (), [ext])
    assert m.device == torch.device("cpu")
    x = torch.tensor([2.0, 4.0], dtype=torch.float64)
    torch.testing.assert_close(m.forward({"x": x})["y"], 0.5 * x + 1.0)
    y, P = m.param_jacobian({"x": x})
    torch.testing.assert_close(y["y"], 0.5 * x + 1.0)
    torch.testing.assert_close(P["y"]["model.a"], x)
    with pytest.raises(FileNotFoundError, match=r"--load nope\.py"):
        EagerModel(path, "model", None, torch.float64, (), ["nope.py"])


def test_a_model_that_is_not_py_eager_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The eager route evaluates py-eager models only: another route's model (an ``AOTIModel``
    stub's, here a stand-in) is refused at load, naming the file and the block."""

    class CompiledStandIn:
        """Not a ``neml2.models.Model``."""

    monkeypatch.setattr(neml2.factory.InputFile, "get_model", lambda self, name: CompiledStandIn())
    path = SCENARIOS / "elasticity.i"
    with pytest.raises(TypeError, match=r"elasticity\.i: \[Models/model\] is a CompiledStandIn"):
        EagerModel(str(path), "model")
