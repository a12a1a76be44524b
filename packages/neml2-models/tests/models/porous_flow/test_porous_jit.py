"""py-jit route: a composed model using all seven porous-flow types, through ``neml2.compile``,
equals py-eager (values and Jacobian) to 1e-12 relative in float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import neml2

COMPOSED = """
[Models]
  [sat]
    type = EffectiveSaturation
    fluid_fraction = theta
    residual_saturation = 0.18
    max_fraction = 0.43
  []
  [vg]
    type = VanGenuchtenCapillaryPressure
    a = 0.28
    m = 0.36
    log_extension = true
    transition_saturation = 0.2
    capillary_pressure = pc_vg
  []
  [bc]
    type = BrooksCoreyCapillaryPressure
    threshold_pressure = 0.25
    exponent = 0.6
    log_extension = true
    transition_saturation = 0.15
    capillary_pressure = pc_bc
  []
  [kp]
    type = PowerLawPermeability
    reference_permeability = 1e-12
    reference_porosity = 0.3
    exponent = 3
    permeability = k_pow
  []
  [ke]
    type = ExponentialLawPermeability
    reference_permeability = 1e-12
    reference_porosity = 0.3
    scale = 5
    permeability = k_exp
  []
  [kk]
    type = KozenyCarmanPermeability
    reference_permeability = 1e-12
    reference_porosity = 0.3
    n = 3
    m = 2
    permeability = k_kc
  []
  [adv]
    type = AdvectiveStress
    coefficient = 'pc_vg'
    js = Js
  []
  [model]
    type = ComposedModel
    models = 'sat vg bc kp ke kk adv'
    additional_outputs = 'effective_saturation pc_vg'
  []
[]
"""


def _inputs() -> dict[str, Any]:
    rng = np.random.default_rng(3)
    n = 6
    T = torch.tensor
    return {
        "theta": T(rng.uniform(0.1, 0.42, n)),  # S from about -0.1 to 0.99 (both branches)
        "porosity": T(rng.uniform(0.1, 0.5, n)),
        "Js": T(rng.uniform(0.9, 1.2, n)),
        "deformation_gradient": T(np.eye(3) + 0.1 * rng.normal(size=(n, 3, 3))),
        "pk1_stress": T(rng.normal(size=(n, 3, 3))),
    }


def _close(a: Any, b: Any) -> None:
    torch.testing.assert_close(getattr(b, "data", b), getattr(a, "data", a), rtol=1e-12,
                               atol=1e-30)  # fmt: skip


def test_porous_composed_jit_matches_eager(dtype: torch.dtype) -> None:
    if dtype != torch.float64:
        pytest.skip("float64 check (the model is built in float64 whatever the dtype point)")
    eager, jit = (neml2.load_string(COMPOSED, dtype=torch.float64).get_model("model")
                  for _ in "ab")  # fmt: skip
    neml2.compile(jit)
    x = _inputs()
    assert set(eager.input_spec) == set(x)
    ye, yj = eager.value(x), jit.value(x)
    assert set(ye) == {"effective_saturation", "pc_vg", "pc_bc", "k_pow", "k_exp", "k_kc",
                       "advective_stress"}  # fmt: skip
    for k in ye:
        _close(ye[k], yj[k])
    _, Je = eager.jacobian(x)
    _, Jj = jit.jacobian(x)
    assert Je.keys() == Jj.keys()
    for out, row in Je.items():
        assert row.keys() == Jj[out].keys()
        for inp, block in row.items():
            _close(block, Jj[out][inp])
    assert jit.forward is not type(jit).forward.__get__(jit)
