"""AdvectiveStress: p_s = -(c/3) Js^(-5/3) Jt^(-2/3) P:F, with and without the optional volume
ratios and with a promoted coefficient; values against numpy, derivatives (harness), and a hand
computation with an explicit F and P."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model


def _hit(type_: str, options: str = "") -> str:
    """``[Models/model]`` of type ``type_`` with ``options`` as its body."""
    return f"[Models]\n  [model]\n    type = {type_}\n    {options}\n  []\n[]\n"


RNG = np.random.default_rng(53)
N = 7
F = np.eye(3) + 0.2 * RNG.normal(size=(N, 3, 3))
P = RNG.normal(size=(N, 3, 3))
JS = RNG.uniform(0.8, 1.3, N)
JT = RNG.uniform(0.9, 1.1, (1,))


def ps(x: dict[str, np.ndarray], c: Any, js: Any = 1.0, jt: Any = 1.0) -> Any:
    q = np.einsum("...ij,...ij->...", x["pk1_stress"], x["deformation_gradient"])
    return {"advective_stress": -c / 3.0 * js ** (-5 / 3) * jt ** (-2 / 3) * q}


FP = {"deformation_gradient": F, "pk1_stress": P}
CASES = [
    ModelCase("porous-advective-stress", _hit("AdvectiveStress", "coefficient = 1.7"), FP,
              lambda x: ps(x, 1.7)),
    ModelCase("porous-advective-stress-js-jt",
              _hit("AdvectiveStress", "coefficient = 1.7\n    js = Js\n    jt = Jt"),
              {**FP, "Js": JS, "Jt": JT}, lambda x: ps(x, 1.7, x["Js"], x["Jt"])),
    ModelCase("porous-advective-stress-jt-promoted",
              _hit("AdvectiveStress", "coefficient = 'c'\n    jt = Jt"),
              {**FP, "Jt": RNG.uniform(0.9, 1.1, N), "c": RNG.uniform(0.5, 2.0, (1,))},
              lambda x: ps(x, x["c"], 1.0, x["Jt"])),
    ModelCase("porous-advective-stress-all-promoted",
              _hit("AdvectiveStress", "coefficient = 'c'\n    js = Js\n    jt = Jt"),
              {**FP, "Js": JS, "Jt": JT, "c": RNG.uniform(0.5, 2.0, N)},
              lambda x: ps(x, x["c"], x["Js"], x["Jt"])),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_porous_advective_stress(case: ModelCase, dtype: torch.dtype, device: Any) -> None:
    check_model(case, dtype=dtype, device=device)


def test_advective_stress_hand_computation() -> None:
    # uniaxial stretch lambda = 1.2 with simple shear gamma = 0.1; P chosen by hand
    F1 = np.array([[1.2, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    P1 = np.array([[10.0, 2.0, 0.0], [1.0, -3.0, 0.0], [0.0, 0.0, 4.0]])
    # P:F = 10*1.2 + 2*0.1 + (-3)*1 + 4*1 = 13.2
    js, jt, c = 1.1, 0.9, 3.0
    expected = -(c / 3.0) * js ** (-5.0 / 3.0) * jt ** (-2.0 / 3.0) * 13.2
    m = load_string(_hit("AdvectiveStress", "coefficient = 3\n    js = Js\n    jt = Jt"),
                    dtype=torch.float64).get_model("model")  # fmt: skip

    def T(a: Any) -> torch.Tensor:
        return torch.tensor(a, dtype=torch.float64)

    out, J = m.jacobian({"Js": T(js), "Jt": T(jt), "deformation_gradient": T(F1),
                         "pk1_stress": T(P1)})  # fmt: skip
    y = out["advective_stress"].data.item()
    assert y == pytest.approx(expected, rel=1e-14)
    k = expected / 13.2
    row = J["advective_stress"]
    np.testing.assert_allclose(row["deformation_gradient"].data.detach().numpy(), k * P1,
                               rtol=1e-14)  # fmt: skip
    np.testing.assert_allclose(row["pk1_stress"].data.detach().numpy(), k * F1, rtol=1e-14)
    assert row["Js"].data.item() == pytest.approx(-5.0 / 3.0 * expected / js, rel=1e-14)
    assert row["Jt"].data.item() == pytest.approx(-2.0 / 3.0 * expected / jt, rel=1e-14)


def test_advective_stress_optional_inputs_default_to_one() -> None:
    m = load_string(_hit("AdvectiveStress", "coefficient = 1.7"), dtype=torch.float64)
    model = m.get_model("model")
    assert list(model.input_spec) == ["deformation_gradient", "pk1_stress"]
    got = model.value({"deformation_gradient": torch.tensor(F), "pk1_stress": torch.tensor(P)})
    np.testing.assert_allclose(got["advective_stress"].data.detach().numpy(),
                               ps(FP, 1.7)["advective_stress"], rtol=1e-13)  # fmt: skip
