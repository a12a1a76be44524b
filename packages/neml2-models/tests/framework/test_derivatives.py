"""jacobian()/jvp() with mixed sub-batch ranks and broadcast batches."""

from __future__ import annotations

import torch

import neml2
from neml2.tensors import SR2, Scalar

HIT = """
[Models]
  [m]
    type = SR2LinearCombination
    from = 'a b'
    to = 'c'
    weights = '2 w'
  []
[]
"""


def test_sub_batch_jacobian_and_jvp() -> None:
    m = neml2.load_string(HIT).get_model("m")
    g = torch.Generator().manual_seed(0)
    a = SR2(torch.rand(4, 3, 6, dtype=torch.float64, generator=g), sub_batch_ndim=1)
    b = SR2(torch.rand(4, 6, dtype=torch.float64, generator=g))
    w = Scalar(torch.rand(4, dtype=torch.float64, generator=g))
    out, J = m.jacobian({"a": a, "b": b, "w": w})
    c = out["c"]
    assert c.sub_batch_ndim == 1
    eye = torch.eye(6, dtype=torch.float64)
    for name, want in {
        "a": (2 * eye).expand(4, 3, 6, 6),
        "b": (w.data[:, None, None, None] * eye).expand(4, 3, 6, 6),
        "w": b.data[:, None, :].expand(4, 3, 6),
    }.items():
        blk = J["c"][name]
        assert (blk.batch_ndim, blk.sub_batch_ndim) == (1, 1)
        torch.testing.assert_close(blk.data, want)
    tangents = {
        "w": torch.ones(4, dtype=torch.float64),
        "a": torch.ones(4, 3, 6, dtype=torch.float64),
    }
    _, jv = m.jvp({"a": a, "b": b, "w": w}, tangents)
    torch.testing.assert_close(jv["c"].data, b.data[:, None, :].expand(4, 3, 6) + 2.0)
    assert jv["c"].data.shape == c.data.shape


def test_raw_tensor_seed_is_wrapped() -> None:
    m = neml2.load_string(
        "[Models]\n[m]\n type = ScalarVariableRate\n variable = a\n[]\n[]\n"
    ).get_model("m")
    f64 = torch.float64
    a = Scalar(torch.tensor([1.0, 2.0], dtype=f64))
    t, t1 = Scalar(torch.tensor([1.0, 1.0], dtype=f64)), Scalar(torch.tensor([0.5, 0.0], dtype=f64))
    seed = torch.arange(6, dtype=f64).reshape(3, 2)  # unmarked leading axis → batch-like
    _, v_out = m(a, a, t, t1, v={"a": {"s": seed}})
    torch.testing.assert_close(v_out["a_rate"]["s"].data, seed / (t.data - t1.data))
    assert list(v_out) == ["a_rate"] and list(v_out["a_rate"]) == ["s"]


def test_a_batch_of_tangents_for_batchless_inputs() -> None:
    """Batched tangents of batch-less inputs: the outputs keep the inputs' (empty) batch, the
    directional derivatives take the tangents' batch (c = 2 a + w b, so dc = 2 da)."""
    m = neml2.load_string(HIT).get_model("m")
    g = torch.Generator().manual_seed(1)
    a, b = (SR2(torch.rand(6, dtype=torch.float64, generator=g)) for _ in range(2))
    w = Scalar(torch.tensor(0.5, dtype=torch.float64))
    da = torch.rand(5, 6, dtype=torch.float64, generator=g)
    out, jv = m.jvp({"a": a, "b": b, "w": w}, {"a": da})
    torch.testing.assert_close(out["c"].data, 2 * a.data + 0.5 * b.data)
    torch.testing.assert_close(jv["c"].data, 2 * da)
