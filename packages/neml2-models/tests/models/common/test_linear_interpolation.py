"""ScalarLinearInterpolation: piecewise-linear y(x) with linear extrapolation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

X = np.array([0.0, 1.0, 3.0, 4.5])
Y = np.array([1.0, 2.0, -0.5, 0.25])


def _hit(abscissa: str, ordinate: str, extra: str = "", tensors: str = "") -> str:
    return f"""
{tensors}
[Models]
  [model]
    type = ScalarLinearInterpolation
    argument = 'x'
    abscissa = {abscissa}
    ordinate = {ordinate}
    {extra}
  []
[]
"""


def _lookup(x: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """np.interp inside the table, end-segment lines outside."""
    y = np.interp(x, xs, ys)
    lo = ys[0] + (ys[1] - ys[0]) / (xs[1] - xs[0]) * (x - xs[0])
    hi = ys[-1] + (ys[-1] - ys[-2]) / (xs[-1] - xs[-2]) * (x - xs[-1])
    return np.asarray(np.where(x < xs[0], lo, np.where(x > xs[-1], hi, y)))


def _lit(a: np.ndarray) -> str:
    return "'" + " ".join(f"{v:.17g}" for v in a) + "'"


POINTS = np.array([-0.7, 0.3, 0.9, 1.2, 2.8, 3.7, 4.4, 5.6])
TABLES = """
[Tensors]
  [X]
    type = Python
    expr = 'Scalar(torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.5, 3.0]]))'
  []
  [Y]
    type = Python
    expr = 'Scalar(torch.tensor([[0.0, 2.0, 1.0], [1.0, -1.0, 4.0]]))'
  []
[]
"""
XB = np.array([[0.0, 1.0, 2.0], [-1.0, 0.5, 3.0]])
YB = np.array([[0.0, 2.0, 1.0], [1.0, -1.0, 4.0]])

CASES = [
    ModelCase(
        "literal-table",
        _hit(_lit(X), _lit(Y)),
        {"x": POINTS},
        lambda x: {"model": _lookup(x["x"], X, Y)},
    ),
    ModelCase(
        "renamed-output",
        _hit(_lit(X), _lit(Y), "output = 'y'"),
        {"x": POINTS[:3]},
        lambda x: {"y": _lookup(x["x"], X, Y)},
    ),
    ModelCase(
        "batched-tables",
        _hit("X", "Y", tensors=TABLES),
        {"x": np.array([[0.4, 2.5], [1.7, -2.0], [2.6, 0.1]])},
        lambda x: {
            "model": np.stack([_lookup(x["x"][:, j], XB[j], YB[j]) for j in range(2)], axis=-1)
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_linear_interpolation(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


@pytest.mark.parametrize(
    ("abscissa", "ordinate", "pattern"),
    [
        ("'0 2 1'", "'1 2 3'", r"'abscissa'.*strictly increasing"),
        ("'0 1 2'", "'1 2'", r"'ordinate'.*2 table nodes.*'abscissa' has 3"),
        ("'0'", "'1'", r"'abscissa'.*at least 2 nodes"),
    ],
)
def test_bad_tables(abscissa: str, ordinate: str, pattern: str) -> None:
    from neml2.factory import load_string

    f = load_string(_hit(abscissa, ordinate))
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + pattern):
        f.get_model("model")
