"""SR2Invariant: I1, von Mises and effective-strain invariants (checked via full 3x3 numpy)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(11)
EPS64 = np.finfo(np.float64).eps


def _hit(kind: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = SR2Invariant
    invariant_type = '{kind}'
    {extra}
  []
[]
"""


def _full(m: np.ndarray) -> np.ndarray:
    """3x3 matrices from Mandel storage (independent unpacking)."""
    r = 1.0 / np.sqrt(2.0)
    out = np.empty((*m.shape[:-1], 3, 3))
    out[..., 0, 0], out[..., 1, 1], out[..., 2, 2] = m[..., 0], m[..., 1], m[..., 2]
    out[..., 1, 2] = out[..., 2, 1] = r * m[..., 3]
    out[..., 0, 2] = out[..., 2, 0] = r * m[..., 4]
    out[..., 0, 1] = out[..., 1, 0] = r * m[..., 5]
    return out


def _dev_sq(m: np.ndarray) -> np.ndarray:
    a = _full(m)
    s = a - np.trace(a, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) / 3.0
    return np.asarray(np.einsum("...ij,...ij->...", s, s))


X = RNG.normal(size=(4, 6))
CASES = [
    ModelCase("I1", _hit("I1"), {"tensor": X},
              lambda x: {"invariant": np.trace(_full(x["tensor"]), axis1=-2, axis2=-1)}),
    ModelCase("VONMISES", _hit("VONMISES", "tensor = 'stress'\n    invariant = 'svm'"),
              {"stress": 100.0 * X},
              lambda x: {"svm": np.sqrt(1.5 * _dev_sq(x["stress"]) + EPS64)}),
    ModelCase("EFFECTIVE_STRAIN", _hit("EFFECTIVE_STRAIN"), {"tensor": X},
              lambda x: {"invariant": np.sqrt(2.0 / 3.0 * _dev_sq(x["tensor"]) + EPS64)}),
    ModelCase("VONMISES-uniaxial", _hit("VONMISES"), {"tensor": [[250.0, 0, 0, 0, 0, 0]]},
              lambda x: {"invariant": np.array([250.0])}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_sr2_invariant(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_unknown_invariant_type() -> None:
    f = load_string(_hit("J2"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'invariant_type'.*'J2'.*VONMISES"):
        f.get_model("model")


def test_missing_invariant_type() -> None:
    f = load_string("[Models]\n  [model]\n    type = SR2Invariant\n  []\n[]\n")
    with pytest.raises(ValueError, match=r"\[Models/model\].*'invariant_type'"):
        f.get_model("model")


@pytest.mark.parametrize("kind", ["VONMISES", "EFFECTIVE_STRAIN"])
def test_regularization_is_dtype_epsilon(kind: str, dtype: torch.dtype) -> None:
    """At a purely volumetric tensor (s = 0) the invariant is sqrt(machine epsilon of dtype)."""
    m = load_string(_hit(kind), dtype=dtype).get_model("model")
    f = m.value({"tensor": torch.tensor([[2.0, 2.0, 2.0, 0.0, 0.0, 0.0]], dtype=dtype)})
    want = torch.full((1,), torch.finfo(dtype).eps, dtype=dtype).sqrt()
    torch.testing.assert_close(f["invariant"].data, want, rtol=1e-6, atol=0.0)
