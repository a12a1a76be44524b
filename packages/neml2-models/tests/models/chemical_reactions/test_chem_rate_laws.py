"""AvramiErofeevNucleation and ContractingGeometry against numpy formulas.

Values: r = k (1 - a) (-ln(1 - a))^n and r = k clamp(1 - a, eps, 1 - eps)^n; derivatives by the
harness (autograd, finite differences, second order). The clamp convention of v3 (the clamp is
not differentiated) and the a = 0 edge of the nucleation law are checked separately.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(21)


def _hit(body: str) -> str:
    return f"[Models]\n  [model]\n{body}  []\n[]\n"


def _ae(coef: str, order: str) -> str:
    return _hit(f"    type = AvramiErofeevNucleation\n    coef = {coef}\n    order = {order}\n")


def _cg(coef: str, order: str) -> str:
    return _hit(f"    type = ContractingGeometry\n    coef = {coef}\n    order = {order}\n")


def _avrami(a: np.ndarray, k: np.ndarray | float, n: np.ndarray | float) -> np.ndarray:
    return k * (1.0 - a) * (-np.log(1.0 - a)) ** n


def _contracting(a: np.ndarray, k: np.ndarray | float, n: float) -> np.ndarray:
    return k * (1.0 - a) ** n  # a stays inside (eps, 1 - eps) in these cases


A7 = RNG.uniform(0.05, 0.95, 7)
CASES = [
    ModelCase("chem-avrami", _ae("1.5", "0.7"), {"conversion_degree": A7},
              lambda x: {"reaction_rate": _avrami(x["conversion_degree"], 1.5, 0.7)}),
    ModelCase("chem-avrami-promoted", _ae("kk", "nn"),
              {"conversion_degree": A7, "kk": [2.5], "nn": RNG.uniform(-0.5, 0.9, 7)},
              lambda x: {"reaction_rate": _avrami(x["conversion_degree"], x["kk"], x["nn"])}),
    ModelCase("chem-contracting", _cg("2.0", "0.6666666666666666"), {"conversion_degree": A7},
              lambda x: {"reaction_rate": _contracting(x["conversion_degree"], 2.0, 2 / 3)}),
    ModelCase("chem-contracting-promoted", _cg("kk", "0.5"),
              {"conversion_degree": A7[:, None] * np.ones(3), "kk": RNG.uniform(0.5, 2, 3)},
              lambda x: {"reaction_rate": _contracting(x["conversion_degree"], x["kk"], 0.5)}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_chem_rate_laws(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_contracting_clamp_is_not_differentiated() -> None:
    """Outside (eps, 1 - eps) the value is k c^n of the clamped c and, as in NEML2 v3, the
    derivative is -k n c^(n - 1) of that c (not zero)."""
    eps = np.finfo(np.float64).eps
    m = load_string(_cg("1.5", "0.7")).get_model("model")
    a = np.array([-0.1, 0.0, 1.0, 1.2])
    c = np.array([1 - eps, 1 - eps, eps, eps])
    out, jac = m.jacobian({"conversion_degree": torch.tensor(a)})
    np.testing.assert_allclose(out["reaction_rate"].data.detach().numpy(), 1.5 * c**0.7, rtol=1e-14)
    d = jac["reaction_rate"]["conversion_degree"].data.detach().numpy()
    np.testing.assert_allclose(d, -1.5 * 0.7 * c**-0.3, rtol=1e-14)


def test_avrami_zero_conversion() -> None:
    """No nucleation without a seed: r(0) = 0 with an infinite slope for n < 1."""
    m = load_string(_ae("1.5", "0.7")).get_model("model")
    out, jac = m.jacobian({"conversion_degree": torch.tensor([0.0], dtype=torch.float64)})
    assert float(out["reaction_rate"].data.detach()) == 0.0
    assert float(jac["reaction_rate"]["conversion_degree"].data.detach()) == np.inf


@pytest.mark.parametrize(
    ("hit", "option"),
    [
        (_ae("-1", "0.5"), "coef"),
        (_cg("-0.1", "0.5"), "coef"),
        (_cg("1", "-0.5"), "order"),
    ],
)
def test_bad_inputs(hit: str, option: str) -> None:
    f = load_string(hit)
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'.*non-negative"):
        f.get_model("model")


def test_negative_avrami_order_and_promoted_coef_accepted() -> None:
    load_string(_ae("1", "-0.5")).get_model("model")
    m = load_string(_cg("kk", "0.5")).get_model("model")
    assert list(m.input_spec) == ["conversion_degree", "kk"]
    assert [n for n, _ in m.named_parameters()] == ["n"]
