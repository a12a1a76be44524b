"""Calling a model with arguments of the wrong kind, as a user would: ``model(x)`` with a raw
tensor, a number, a wrapper of another type; ``jacobian``/``value`` with something that is not a
mapping. Each either works (a raw tensor is wrapped, as ``value`` does) or raises an error that
names the model, the input, the expected and the given type; none reaches an internal error."""

from __future__ import annotations

import pytest
import torch

import neml2
from neml2.tensors import SR2, Scalar

ELASTICITY = """
[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = '1e5 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
"""

TWO_INPUTS = """
[Models]
  [sum]
    type = ScalarLinearCombination
    from = 'a b'
    to = 'c'
    weights = '2 3'
  []
[]
"""


@pytest.fixture
def elasticity() -> neml2.Model:
    return neml2.load_string(ELASTICITY).get_model("model")


def _strain(dtype: torch.dtype, device: torch.device, batch: int = 3) -> torch.Tensor:
    return torch.linspace(-1e-3, 2e-3, batch * 6, dtype=dtype, device=device).reshape(batch, 6)


def test_raw_tensor_is_wrapped_like_value(
    elasticity: neml2.Model, dtype: torch.dtype, device: torch.device
) -> None:
    """Before: AttributeError "'Tensor' object has no attribute '_like'" from inside the model."""
    elasticity.to(dtype=dtype, device=device)
    raw = _strain(dtype, device)
    stress = elasticity(raw)
    assert isinstance(stress, SR2)
    expected = elasticity.value({"strain": SR2(raw)})["stress"]
    torch.testing.assert_close(stress.data, expected.data, rtol=0, atol=0)


def test_wrapper_of_another_type_names_input_and_types(elasticity: neml2.Model) -> None:
    """Before: "mat1 and mat2 shapes cannot be multiplied" (batch 3), or, for a Scalar of
    batch 6, a silently broadcast result."""
    for batch in (3, 6):
        with pytest.raises(
            TypeError,
            match=r"LinearIsotropicElasticity \(model\): input 0 'strain': expected SR2, got Scalar",
        ):
            elasticity(Scalar(torch.zeros(batch, dtype=torch.float64)))


def test_number_of_the_wrong_shape_names_input(elasticity: neml2.Model) -> None:
    """Before: AttributeError "'float' object has no attribute 'data'"."""
    with pytest.raises(ValueError, match=r"input 0 'strain': SR2: expected trailing base shape"):
        elasticity(1.0)


def test_other_object_names_input(elasticity: neml2.Model) -> None:
    with pytest.raises(TypeError, match=r"input 0 'strain': expected SR2 or a tensor, got str"):
        elasticity("0.001")


def test_second_input_is_named() -> None:
    model = neml2.load_string(TWO_INPUTS).get_model("sum")
    a = Scalar(torch.tensor([1.0, 2.0], dtype=torch.float64))
    with pytest.raises(TypeError, match=r"input 1 'b': expected Scalar, got SR2"):
        model(a, SR2(torch.zeros(2, 6, dtype=torch.float64)))
    c = model(a, torch.tensor([10.0, 20.0], dtype=torch.float64))  # a raw second input is wrapped
    torch.testing.assert_close(c.data, torch.tensor([32.0, 64.0], dtype=torch.float64))


@pytest.mark.parametrize("method", ["value", "jacobian", "param_jacobian"])
def test_inputs_that_are_not_a_mapping(elasticity: neml2.Model, method: str) -> None:
    """Before: "argument of type 'SR2' is not iterable" (jacobian)."""
    strain = SR2(torch.zeros(3, 6, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"\(model\): the inputs must be a mapping "
                                        r"\{input name: value\} over \['strain'\], got SR2"):  # fmt: skip
        getattr(elasticity, method)(strain)


def test_meta_device_input_gives_meta_outputs(elasticity: neml2.Model) -> None:
    """A tensor on the meta device (shapes only) flows through like any other device."""
    meta = SR2(torch.empty(4, 6, dtype=torch.float64, device="meta"))
    stress = elasticity.to("meta")(meta)
    assert stress.data.device.type == "meta" and stress.data.shape == (4, 6)
