"""Typed options: catalog-style string defaults and Python arguments are typed like HIT values."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import neml2
from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output, parameter
from neml2.tensors import Scalar


class _Flagged(Model):
    """A test-only leaf with typed options whose defaults are catalog-style strings."""

    flip: bool
    order: int
    scale: float
    weights: list[float]

    hit = HitSchema(
        input("from", Scalar, "Input", attr="from_var"),
        output("to", Scalar, "Output", attr="to_var"),
        option("flip", bool, "Negate the input", default="False"),
        option("order", int, "Some order", default="2"),
        option("scale", float, "Some factor", default="1.5"),
        option("weights", list[float], "Some weights", default="1 2.5"),
    )

    def forward(self, x: Any, *promoted: Any, v: Any = None) -> Any:
        return -x if self.flip else x


def test_string_defaults_are_typed() -> None:
    m = _Flagged()
    assert m.flip is False
    assert m.order == 2 and isinstance(m.order, int)
    assert m.scale == 1.5
    assert m.weights == [1.0, 2.5]


def test_python_string_arguments_are_typed() -> None:
    m = _Flagged(flip="true", order="3")
    assert m.flip is True and m.order == 3
    assert m(Scalar(2.0)).data.item() == -2.0


def test_bad_string_argument_names_the_option() -> None:
    with pytest.raises(ValueError, match=r"option 'flip': expected a boolean, got 'yes'"):
        _Flagged(flip="yes")


def test_hit_booleans_stay_strict() -> None:
    text = """
[Models]
  [m]
    type = R2Multiplication
    A = 'a'
    B = 'b'
    to = 'c'
    invert_A = True
  []
[]
"""
    with pytest.raises(ValueError, match=r"field .invert_A.: expected a boolean"):
        neml2.load_string(text).get_model("m")


class _SumsParameters(Model):
    """Test-only leaf combining a literal and a [Tensors] parameter while it is constructed."""

    hit = HitSchema(
        input("from", Scalar, "Input", attr="from_var"),
        output("to", Scalar, "Output", attr="to_var"),
        parameter("a", Scalar, "A literal"),
        parameter("b", Scalar, "A [Tensors] value"),
    )

    def __post_init__(self) -> None:
        self.total = self._get_param("a", ()) + self._get_param("b", ())

    def forward(self, x: Any, *promoted: Any, v: Any = None) -> Any:
        return x * self.total


def test_constants_take_the_factory_dtype_during_construction() -> None:
    text = """
[Tensors]
  [bval]
    type = Python
    expr = 'Scalar(2.0)'
  []
[]
[Models]
  [m]
    type = SumsParametersForTest
    from = 'x'
    to = 'y'
    a = 1.5
    b = 'bval'
  []
[]
"""
    # registered here, not at import: the coverage test re-imports test modules under other names
    register_neml2_object("SumsParametersForTest")(_SumsParameters)
    model = neml2.load_string(text, dtype=torch.float32).get_model("m")
    assert model.total.dtype == torch.float32
    assert model.total.data.item() == 3.5
