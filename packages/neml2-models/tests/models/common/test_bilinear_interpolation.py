"""{Scalar,SR2,Vec}BilinearInterpolation against scipy's RegularGridInterpolator."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch
from scipy.interpolate import RegularGridInterpolator  # type: ignore[import-untyped]

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(14)
X1 = np.array([0.0, 1.0, 2.5])
X2 = np.array([-1.0, 0.0, 0.5, 2.0])
BASES = {"Scalar": (), "SR2": (6,), "Vec": (3,)}
ORD = {t: RNG.normal(size=(3, 4, *b)) for t, b in BASES.items()}


def _hit(t: str, ordinate: np.ndarray, abscissa1: str = "'0 1 2.5'") -> str:
    expr = f"{t}(torch.tensor({ordinate.tolist()!r}, dtype=torch.float64))"
    return f"""
[Tensors]
  [Y]
    type = Python
    expr = '{expr}'
  []
[]
[Models]
  [model]
    type = {t}BilinearInterpolation
    argument1 = 'a'
    argument2 = 'b'
    abscissa1 = {abscissa1}
    abscissa2 = '-1 0 0.5 2'
    ordinate = 'Y'
  []
[]
"""


def _expected(
    t: str, out: str = "model"
) -> Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    def f(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        rgi = RegularGridInterpolator((X1, X2), ORD[t], bounds_error=False, fill_value=None)
        return {out: np.asarray(rgi(np.stack([x["a"], x["b"]], axis=-1)))}

    return f


# inside cells, outside the grid on each side, away from grid lines (finite differences)
A = np.array([0.3, 1.7, 2.2, -0.6, 3.1, 0.8])
B = np.array([-0.4, 0.3, 1.1, 2.6, -1.8, 0.2])
CASES = [
    ModelCase(t, _hit(t, ORD[t]), {"a": A, "b": B}, _expected(t), second_order=True) for t in BASES
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bilinear_interpolation(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_bad_ordinate_shape() -> None:
    from neml2.factory import load_string

    f = load_string(_hit("Scalar", ORD["Scalar"][:, :3]))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'ordinate'.*\(3, 3\).*\(3, 4\)"):
        f.get_model("model")


def test_bad_abscissa() -> None:
    from neml2.factory import load_string

    f = load_string(_hit("Vec", ORD["Vec"], "'0 1 1'"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'abscissa1'.*strictly increasing"):
        f.get_model("model")
