"""R2Multiplication, R2ToSR2, R2ToWR2, SR2ToR2, RotationMatrix, {R2,SR2}Determinant."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from model_hit import model_hit as _hit

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(3)
S2 = np.sqrt(2.0)


def _mandel(m: np.ndarray) -> np.ndarray:
    s = 0.5 * (m + np.swapaxes(m, -1, -2))
    return np.stack([s[..., 0, 0], s[..., 1, 1], s[..., 2, 2], S2 * s[..., 1, 2],
                     S2 * s[..., 0, 2], S2 * s[..., 0, 1]], -1)  # fmt: skip


def _full(v: np.ndarray) -> np.ndarray:
    out = np.empty((*v.shape[:-1], 3, 3))
    out[..., 0, 0], out[..., 1, 1], out[..., 2, 2] = v[..., 0], v[..., 1], v[..., 2]
    out[..., 1, 2] = out[..., 2, 1] = v[..., 3] / S2
    out[..., 0, 2] = out[..., 2, 0] = v[..., 4] / S2
    out[..., 0, 1] = out[..., 1, 0] = v[..., 5] / S2
    return out


def _axial(m: np.ndarray) -> np.ndarray:
    w = 0.5 * (m - np.swapaxes(m, -1, -2))
    return np.stack([w[..., 2, 1], w[..., 0, 2], w[..., 1, 0]], -1)


def _rotation(r: np.ndarray) -> np.ndarray:
    """Rotation matrix via the unit quaternion of the MRP (independent formula)."""
    s = (r * r).sum(-1)
    w = (1 - s) / (1 + s)
    x, y, z = (2 * r / (1 + s)[..., None]).transpose(-1, *range(r.ndim - 1))
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)  # fmt: skip


def _op(m: np.ndarray, inv: bool, tr: bool) -> np.ndarray:
    m = np.linalg.inv(m) if inv else m
    return np.swapaxes(m, -1, -2) if tr else m


def _well_conditioned(*shape: int) -> np.ndarray:
    return np.eye(3) + 0.3 * RNG.normal(size=(*shape, 3, 3))


def _mult_case(ia: bool, ib: bool, ta: bool, tb: bool) -> ModelCase:
    flags = {"invert_A": ia, "invert_B": ib, "transpose_A": ta, "transpose_B": tb}
    opts = "\n    ".join(f"{k} = {str(val).lower()}" for k, val in flags.items())
    return ModelCase(
        "mult-" + "".join(k for k, val in zip("IiTt", flags.values(), strict=True) if val),
        _hit("R2Multiplication", "A = 'F'\n    B = 'G'\n    to = 'H'\n    " + opts),
        {"F": _well_conditioned(3), "G": _well_conditioned(3)},
        lambda x: {"H": _op(x["F"], ia, ta) @ _op(x["G"], ib, tb)},
    )


MULT = [_mult_case(*f) for f in itertools.product([False, True], repeat=4) if sum(f) <= 2]
R = RNG.normal(size=(4, 3, 3))
CASES = [
    *MULT,
    ModelCase("mult-default", _hit("R2Multiplication", "to = 'C'"),
              {"A": R, "B": RNG.normal(size=(3, 3))}, lambda x: {"C": x["A"] @ x["B"]}),
    ModelCase("R2ToSR2", _hit("R2ToSR2"), {"input": R}, lambda x: {"output": _mandel(x["input"])}),
    ModelCase("R2ToWR2", _hit("R2ToWR2"), {"input": R}, lambda x: {"output": _axial(x["input"])}),
    ModelCase("SR2ToR2", _hit("SR2ToR2", "input = 'e'\n    output = 'E'"),
              {"e": RNG.normal(size=(4, 6))}, lambda x: {"E": _full(x["e"])}),
    ModelCase("RotationMatrix", _hit("RotationMatrix", "from = 'q'\n    to = 'R'"),
              {"q": 0.6 * RNG.normal(size=(5, 3))}, lambda x: {"R": _rotation(x["q"])}),
    ModelCase("R2Determinant", _hit("R2Determinant"), {"input": R},
              lambda x: {"determinant": np.linalg.det(x["input"])}),
    ModelCase("R2Determinant-singular", _hit("R2Determinant"),
              {"input": np.arange(1.0, 10.0).reshape(1, 3, 3)},
              lambda x: {"determinant": np.zeros(1)}),
    ModelCase("SR2Determinant", _hit("SR2Determinant", "determinant = 'J'"),
              {"input": RNG.normal(size=(4, 6))},
              lambda x: {"J": np.linalg.det(_full(x["input"]))}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_r2_models(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_rotation_matrix_is_orthogonal(dtype: torch.dtype) -> None:
    m = load_string(_hit("RotationMatrix"), dtype=dtype).get_model("model")
    q = torch.tensor(RNG.normal(size=(6, 3)), dtype=dtype)
    Rm = m.value({"from": q})["to"].data
    eye = torch.eye(3, dtype=dtype).expand(6, 3, 3)
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    torch.testing.assert_close(Rm @ Rm.mT, eye, rtol=tol, atol=tol)
    torch.testing.assert_close(torch.linalg.det(Rm), torch.ones(6, dtype=dtype), rtol=tol, atol=tol)


def test_multiplication_bad_flag() -> None:
    f = load_string(_hit("R2Multiplication", "invert_A = yes"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*invert_A"):
        f.get_model("model")
