"""SR2DynamicSum/Mean and SR2IntermediateSum/Mean/Diff (values, JVPs, per-site seeds)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model
from neml2.tensors import SR2, sub_batch_seed

RNG = np.random.default_rng(17)


def _hit(t: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = SR2{t}
    from = 'x'
    to = 'y'
    {extra}
  []
[]
"""


X = RNG.normal(size=(3, 4, 5, 6))
XS = RNG.normal(size=(2, 4, 3, 6))
# Plain batches: Dynamic* reduce dynamic-batch axes and Intermediate* a plain batch axis, so
# jacobian() has no block layout (it raises; see tests/framework/test_jacobian_layout.py) and the
# derivatives are checked through jvp (test_jvp); the *-sub cases mark the axis as sub-batch.
CASES = [
    ModelCase("DynamicSum-0", _hit("DynamicSum", "dim = 0"), {"x": X},
              lambda x: {"y": x["x"].sum(0)}, derivatives=False),
    ModelCase("DynamicSum-neg", _hit("DynamicSum", "dim = -2"), {"x": X},
              lambda x: {"y": x["x"].sum(1)}, derivatives=False),
    ModelCase("DynamicMean-1", _hit("DynamicMean", "dim = 1"), {"x": X},
              lambda x: {"y": x["x"].mean(1)}, derivatives=False),
    ModelCase("IntermediateSum", _hit("IntermediateSum", "reduces = 'grain'"), {"x": X},
              lambda x: {"y": x["x"].sum(2)}, derivatives=False),
    ModelCase("IntermediateMean", _hit("IntermediateMean", "reduces = 'grain'"), {"x": X},
              lambda x: {"y": x["x"].mean(2)}, derivatives=False),
    ModelCase("IntermediateDiff", _hit("IntermediateDiff", "reduces = 'cell'\n    dim = 0"),
              {"x": X}, lambda x: {"y": np.diff(x["x"], axis=2)}, derivatives=False),
    ModelCase("IntermediateDiff-n2",
              _hit("IntermediateDiff", "reduces = 'cell'\n    dim = -1\n    n = 2"),
              {"x": X}, lambda x: {"y": np.diff(x["x"], n=2, axis=2)}, derivatives=False),
    # the reduced axis marked as sub-batch: jacobian() gives (*B, *out_sub, 6, *in_sub, 6) blocks
    ModelCase("IntermediateSum-sub", _hit("IntermediateSum", "reduces = 'grain'"), {"x": XS},
              lambda x: {"y": x["x"].sum(2)}, sub_batch={"x": 1}),
    ModelCase("IntermediateMean-sub", _hit("IntermediateMean", "reduces = 'grain'"), {"x": XS},
              lambda x: {"y": x["x"].mean(2)}, sub_batch={"x": 1}),
    ModelCase("IntermediateDiff-sub", _hit("IntermediateDiff", "reduces = 'cell'\n    dim = 0"),
              {"x": XS}, lambda x: {"y": np.diff(x["x"], axis=2)}, sub_batch={"x": 1}),
    ModelCase("IntermediateDiff-n2-sub2",
              _hit("IntermediateDiff", "reduces = 'cell'\n    dim = 0\n    n = 2"),
              {"x": XS}, lambda x: {"y": np.diff(x["x"], n=2, axis=1)}, sub_batch={"x": 2}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_values(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def _raw_forward(model: Any, sub: int) -> Any:
    return lambda d: model(SR2(d, sub_batch_ndim=sub)).data


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("sub", [0, 1])
@pytest.mark.parametrize("tangent_batch", ["full", "broadcast"])
def test_jvp(case: ModelCase, sub: int, tangent_batch: str) -> None:
    """Directional derivatives (full and broadcast tangents) vs torch.autograd.

    With ``sub = 1`` the last batch axis is a sub-batch axis (Dynamic* then address the
    remaining dynamic axes; Intermediate* reduce that sub axis).
    """
    m = load_string(case.hit).get_model("model")
    x = torch.tensor(X)
    dx = torch.tensor(RNG.normal(size=(4, 1, 6) if tangent_batch == "broadcast" else X.shape))
    xw = SR2(x, sub_batch_ndim=sub)
    _, got = m.jvp({"x": xw}, {"x": SR2(dx, sub_batch_ndim=min(sub, dx.dim() - 1))})
    f = _raw_forward(m, sub)
    _, want = torch.autograd.functional.jvp(f, x, dx.expand_as(x))  # type: ignore[no-untyped-call]
    torch.testing.assert_close(got["y"].data.expand_as(want), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["IntermediateSum", "IntermediateMean", "IntermediateDiff"])
def test_per_site_seed(op: str) -> None:
    """A per-site (paired) seed on the reduced axis is exposed into K, not summed."""
    m = load_string(_hit(op, "reduces = 'grain'\n    dim = 0" if op.endswith("Diff") else
                         "reduces = 'grain'")).get_model("model")  # fmt: skip
    x = SR2(torch.tensor(X[0]), sub_batch_ndim=1)  # (4 | 5, 6)
    _, vo = m(x, v={"x": {"x": sub_batch_seed(x)}})
    t = vo["y"]["x"]
    eye = torch.eye(6, dtype=torch.float64)
    if op.endswith("Diff"):  # t[s, k, b, i, :] = (δ(s, i+1) - δ(s, i)) e_k
        sel = torch.eye(5, dtype=torch.float64)
        want = (sel[:, 1:] - sel[:, :-1])[:, None, None, :, None] * eye[None, :, None, None, :]
        want = want.expand(5, 6, 4, 4, 6)
    else:
        scale = 0.2 if op.endswith("Mean") else 1.0
        want = (scale * eye)[None, :, None, :].expand(5, 6, 4, 6)
    torch.testing.assert_close(t.data.expand_as(want), want, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize(
    ("t", "opts", "pattern"),
    [
        ("DynamicSum", "", r"'dim'"),
        ("IntermediateMean", "", r"'reduces'"),
        ("IntermediateDiff", "reduces = 'a'\n    dim = 0\n    n = 0", r"'n'.*>= 1"),
        ("IntermediateSum", "reduces = 'a b'", r"'reduces'.*one axis label"),
    ],
)
def test_bad_options(t: str, opts: str, pattern: str) -> None:
    f = load_string(_hit(t, opts))
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + pattern):
        f.get_model("model")


@pytest.mark.parametrize(
    ("t", "opts", "pattern"),
    [
        ("DynamicMean", "dim = 3", r"'dim' = 3 is out of range.*'x'.*\(3, 4, 5\)"),
        ("IntermediateDiff", "reduces = 'a'\n    dim = 1", r"'dim' = 1 is out of range.*\(5,\)"),
    ],
)
def test_dim_out_of_range(t: str, opts: str, pattern: str) -> None:
    m = load_string(_hit(t, opts)).get_model("model")
    with pytest.raises(ValueError, match=rf"SR2{t} 'model'.*" + pattern):
        m.value({"x": torch.tensor(X)})
