"""``neml2.models.boundary``: names, order, types, base and sub-batch shapes at the boundary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from narrow import narrow

from neml2.factory import load_input, load_string
from neml2.models.boundary import VarInfo, boundary_variables
from neml2.models.common.implicit_update import ImplicitUpdate

ELASTIC = """
[Models]
  [model]
    type = LinearIsotropicElasticity
    coefficients = '1e3 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
[]
"""

COMPOSED = """
[Settings]
  [example_batch_shape]
    strain = '(2; 3)'
  []
[]
[Models]
  [eq]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'stress'
    invariant = 's'
  []
  [elastic]
    type = LinearIsotropicElasticity
    coefficients = '1e3 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [model]
    type = ComposedModel
    models = 'elastic eq'
    additional_outputs = 'stress'
  []
[]
"""


def test_leaf_boundary() -> None:
    model = load_string(ELASTIC).get_model("model")
    ins, outs = boundary_variables(model)
    assert ins == [VarInfo("strain", "SR2", (6,), ())]
    assert outs == [VarInfo("stress", "SR2", (6,), ())]
    assert ins[0].var_size == 6


def test_composed_boundary_with_settings_and_overrides() -> None:
    f = load_string(COMPOSED)
    model = f.get_model("model")
    ins, outs = boundary_variables(model, f.settings)
    assert [v.name for v in ins] == list(model.input_spec)
    assert ins == [VarInfo("strain", "SR2", (6,), (3,))]
    by_name = {v.name: v for v in outs}
    assert [v.name for v in outs] == list(model.output_spec)
    assert by_name["s"] == VarInfo("s", "Scalar", (), ())
    assert by_name["s"].var_size == 1
    ins2, _ = boundary_variables(model, f.settings, sub_batch={"strain": (4, 2)})
    assert ins2[0].sub_batch_shape == (4, 2)
    ins3, _ = boundary_variables(model)
    assert ins3[0].sub_batch_shape == ()


def test_implicit_boundary_excludes_parameters() -> None:
    path = Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i"
    model = narrow(load_input(path).get_model("model"), ImplicitUpdate)
    ins, outs = boundary_variables(model)
    names = [v.name for v in ins]
    assert names == list(model.input_spec)
    params = {n.rsplit(".", 1)[-1] for n, _ in model.named_parameters()}
    assert not params & set(names)
    types = {v.name: (v.var_type, v.base_shape) for v in (*ins, *outs)}
    assert types["t"] == ("Scalar", ())
    assert types["stress"] == ("SR2", (6,))
    assert [v.name for v in outs] == list(model.system.unknown_names)


def test_not_a_model() -> None:
    with pytest.raises(TypeError, match="expected a neml2 Model"):
        boundary_variables(object())
