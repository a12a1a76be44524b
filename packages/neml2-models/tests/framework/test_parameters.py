"""Parameter modes, parameter derivatives, request_AD and the jvp/jacobian API."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import neml2
from neml2.models.model import Model, register_submodule
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import SR2, Scalar

F64 = torch.float64

MODES = """
[Tensors]
  [wt]
    type = Python
    expr = 'Scalar(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))'
  []
[]
[Models]
  [kprov]
    type = ScalarConstantParameter
    value = 4
    parameter = 'k'
  []
  [literal]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = '1.5'
  []
  [tensors]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 'wt'
  []
  [provider]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 'kprov'
  []
  [provider_var]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 'kprov.k'
  []
  [bare]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 'myweight'
  []
[]
"""


def test_parameter_modes() -> None:
    f = neml2.load_string(MODES)
    lit = f.get_model("literal")
    assert list(lit.input_spec) == ["a"] and dict(lit.named_parameters())["weight_0"].item() == 1.5
    ten = f.get_model("tensors")
    assert dict(ten.named_parameters())["weight_0"].tolist() == [1.0, 2.0, 3.0]
    for name in ("provider", "provider_var"):
        m = f.get_model(name)
        assert list(m.input_spec) == ["a", "k"]
        nl = m.nl_params["weight_0"]
        assert nl.input_name == "k" and nl.provider is f.get_model("kprov") and nl.tail_index == 0
    bare = f.get_model("bare")
    assert (
        list(bare.input_spec) == ["a", "myweight"] and bare.nl_params["weight_0"].provider is None
    )


def test_promotion_disabled_error() -> None:
    class NoPromo(Model):
        hit = HitSchema(
            input("x", Scalar, "x"),
            output("y", Scalar, "y"),
            parameter("c", Scalar, "c"),
        )

    with pytest.raises(
        ValueError,
        match=r"option 'c': parameter 'c': cannot resolve spec 'oops' as "
        r"a literal or \[Tensors\] entry, and variable coupling is not enabled",
    ):
        NoPromo(c="oops")
    with pytest.raises(TypeError, match=r"unexpected constructor argument\(s\) \['bogus'\]"):
        NoPromo(c=1.0, bogus=2)


def test_parameter_derivatives() -> None:
    text = MODES.replace("weights = '1.5'", "weights = '1.5'\n    offset = 0.25")
    m = neml2.load_string(text).get_model("literal")
    a = torch.tensor([1.0, -2.0, 3.0], dtype=F64)
    out, jac = m.param_jacobian({"a": a})
    torch.testing.assert_close(out["b"], 1.5 * a + 0.25)
    torch.testing.assert_close(jac["b"]["weight_0"], a)
    torch.testing.assert_close(jac["b"]["offset"], torch.ones(3, dtype=F64))
    cot = torch.tensor([1.0, 2.0, 3.0], dtype=F64)
    g = m.param_vjp({"a": a}, {"b": cot})
    torch.testing.assert_close(g["weight_0"], (cot * a).sum())
    torch.testing.assert_close(g["offset"], cot.sum())
    assert m.parameter_base_shapes() == {"weight_0": (), "offset": ()}


def test_parameter_derivatives_of_a_sub_batched_output() -> None:
    """Blocks ``(*batch, *out_sub, *out_base, *param_base)``: one parameter per batch entry,
    shared by its sites; here d(c x^2)/dc = x^2 per site (hand derivative)."""
    text = """
    [Models]
      [copy]
        type = CopyScalar
        from = 'x'
        to = 'x2'
      []
      [square]
        type = ScalarMultiplication
        from = 'x x2'
        to = 'y'
        scaling = 1.5
      []
      [stress]
        type = LinearIsotropicElasticity
        coefficients = '1e3 0.3'
        coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
      []
      [model]
        type = ComposedModel
        models = 'copy square stress'
      []
    []
    """
    m = neml2.load_string(text).get_model("model")
    x = torch.tensor([[0.5, 1.0, 2.0], [1.5, -1.0, 3.0]], dtype=F64)
    strain = torch.linspace(-1e-3, 1e-3, 12, dtype=F64).reshape(2, 6)
    out, jac = m.param_jacobian({"x": Scalar(x, sub_batch_ndim=1), "strain": SR2(strain)})
    torch.testing.assert_close(out["y"], 1.5 * x**2)
    torch.testing.assert_close(jac["y"]["square.scaling"], x**2)
    torch.testing.assert_close(jac["y"]["stress.E"], torch.zeros(2, 3, dtype=F64))
    assert jac["stress"]["stress.E"].shape == (2, 6)
    torch.testing.assert_close(jac["stress"]["square.scaling"], torch.zeros(2, 6, dtype=F64))


def test_set_parameter() -> None:
    m = neml2.load_string(MODES).get_model("literal")
    p = dict(m.named_parameters())["weight_0"]
    m.set_parameter("weight_0", torch.tensor(3.0, dtype=F64))
    assert dict(m.named_parameters())["weight_0"] is p and p.item() == 3.0
    m.set_parameter("weight_0", torch.tensor([1.0, 2.0], dtype=F64))
    (b,) = m.call_by_name({"a": torch.tensor([1.0, 1.0], dtype=F64)}).values()
    assert b.data.tolist() == [1.0, 2.0]
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        m.set_parameter("nope", 1.0)


def test_set_parameter_keeps_a_python_number_exact() -> None:
    """A Python float is stored at the parameter's precision (it once went through float32)."""
    m = neml2.load_string(MODES).get_model("literal")
    m.set_parameter("weight_0", 100000.1)
    assert dict(m.named_parameters())["weight_0"].item() == 100000.1


def test_param_cache_follows_replacement() -> None:
    """_get_param's cached wrapper tracks in-place edits, replaced parameters and .to()."""
    m = neml2.load_string(MODES).get_model("literal")
    w0 = m._get_param("weight_0")
    assert m._get_param("weight_0") is w0  # cached
    with torch.no_grad():
        dict(m.named_parameters())["weight_0"].fill_(5.0)
    assert m._get_param("weight_0").data.item() == 5.0
    m.set_parameter("weight_0", torch.tensor([1.0, 2.0], dtype=F64))  # replaced
    assert m._get_param("weight_0").data.tolist() == [1.0, 2.0]
    m.to(torch.float32)
    assert m._get_param("weight_0").data.dtype == torch.float32
    with pytest.raises(KeyError, match="no parameter or buffer 'nope'"):
        m._get_param("nope")


class Cubic(Model):
    """y = c x^3, s = c x (two outputs) — derivatives from autograd (request_AD)."""

    hit = HitSchema(
        input("x", Scalar, "x"),
        input("e", SR2, "e"),
        output("y", Scalar, "y"),
        output("s", SR2, "s"),
        parameter("c", Scalar, "c", default="2"),
    )

    def __post_init__(self) -> None:
        self.request_AD()

    def forward(self, x: Any, e: Any, v: Any = None) -> Any:
        c = self._get_param("c")
        return c * x * x * x, e * (c * x)


def test_request_ad_jacobian() -> None:
    m = Cubic()
    x = torch.tensor([1.0, 2.0], dtype=F64)
    e = torch.arange(12, dtype=F64).reshape(2, 6)
    _out, J = m.jacobian({"x": x, "e": e})
    torch.testing.assert_close(J["y"]["x"].data, 6 * x**2)
    torch.testing.assert_close(J["y"]["e"].data, torch.zeros(2, 6, dtype=F64))
    torch.testing.assert_close(J["s"]["x"].data, 2 * e)
    eye = torch.eye(6, dtype=F64).expand(2, 6, 6)
    torch.testing.assert_close(J["s"]["e"].data, 2 * x[:, None, None] * eye)
    _, jv = m.jvp({"x": x, "e": e}, {"x": torch.ones(2, dtype=F64)})
    torch.testing.assert_close(jv["y"].data, 6 * x**2)
    torch.testing.assert_close(jv["s"].data, 2 * e)


def test_register_submodule_naming() -> None:
    parent = torch.nn.Module()
    a, b, c = Cubic(), Cubic(), Cubic()
    a._hit_name, b._hit_name, c._hit_name = "elastic", "not an id", "elastic"
    used: set[str] = set()
    assert register_submodule(parent, a, "_child_0", used=used) == "elastic"
    assert register_submodule(parent, b, "_child_1", used=used) == "_child_1"
    assert register_submodule(parent, c, "_child_2", used=used) == "_child_2"
