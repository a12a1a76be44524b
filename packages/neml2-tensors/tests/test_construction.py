"""Construction, re-wrapping, validation errors, dtype/device rules and factories."""

from __future__ import annotations

import math

import pytest
import torch

import neml2.tensors as nt
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, MillerIndex, Quaternion, Scalar, Vec

ALL = [Scalar, Vec, R2, SR2, WR2, SSR4, MRP, Quaternion, MillerIndex]


def test_base_shape_error_message() -> None:
    with pytest.raises(
        ValueError, match=r"SR2: expected trailing base shape \(6,\), got tensor of shape \(4, 3\)"
    ):
        SR2(torch.zeros(4, 3))
    with pytest.raises(ValueError, match=r"SSR4: expected trailing base shape \(6, 6\)"):
        SSR4(torch.zeros(6))


def test_python_numbers_default_float64() -> None:
    assert Scalar(1.5).dtype == torch.float64
    assert Vec(0, 0, 1).dtype == torch.float64
    assert Scalar([1, 2]).dtype == torch.float64
    assert Scalar(torch.zeros(2, dtype=torch.float32)).dtype == torch.float32
    assert Scalar(1.0, dtype=torch.float32).dtype == torch.float32


@pytest.mark.parametrize("cls", ALL)
def test_factories(cls: type[nt.PrimitiveTensor], dtype: torch.dtype, device: torch.device) -> None:
    z = cls.zeros(2, 3, dtype=dtype, device=device)
    assert tuple(z.shape) == (2, 3, *cls.BASE_SHAPE)
    assert z.dtype == dtype and z.device.type == device.type
    assert cls.zeros(4).dtype == torch.float64
    assert cls.ones((2,)).data.sum().item() == 2 * math.prod(cls.BASE_SHAPE)
    assert cls.empty(3).batch_shape == (3,)
    f = cls.full(2, fill_value=3.0, dtype=dtype)
    assert torch.all(f.data == 3.0) and f.batch_shape == (2,)
    g = cls.full(4, 2, 1.5)
    assert g.batch_shape == (4, 2) and torch.all(g.data == 1.5) and g.dtype == torch.float64
    assert cls.full(1.0).batch_shape == ()
    n = math.prod(cls.BASE_SHAPE)
    if cls is not SR2:
        filled = cls.fill(*range(n), dtype=dtype)
        assert torch.equal(filled.data.flatten(), torch.arange(n, dtype=dtype))


def test_identities(dtype: torch.dtype) -> None:
    assert torch.equal(R2.identity(dtype=dtype).data, torch.eye(3, dtype=dtype))
    assert SR2.identity().data.tolist() == [1, 1, 1, 0, 0, 0]
    assert WR2.identity().data.tolist() == [0, 0, 0]
    assert MRP.identity().data.tolist() == [0, 0, 0]
    assert Quaternion.identity().data.tolist() == [1, 0, 0, 0]
    assert Scalar.identity().data.item() == 1.0
    e = SR2.fill(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    torch.testing.assert_close((SSR4.identity_sym() @ e).data, e.data)
    torch.testing.assert_close((SSR4.identity() @ e).data, nt.tr(e).data * SR2.identity().data)
    torch.testing.assert_close((SSR4.identity_dev() @ e).data, nt.dev(e).data)
    torch.testing.assert_close((SSR4.identity_vol() @ e).data, nt.vol(e).data)


def test_sr2_fill_variants() -> None:
    assert SR2.fill(2.0).data.tolist() == [2, 2, 2, 0, 0, 0]
    assert SR2.fill(1.0, 2.0, 3.0).data.tolist() == [1, 2, 3, 0, 0, 0]
    with pytest.raises(ValueError, match=r"SR2\.fill expects 1, 3 or 6"):
        SR2.fill(1.0, 2.0)
    batched = SR2.fill(Scalar([1.0, 2.0]), 0.0, 0.0)
    assert batched.batch_shape == (2,)


def test_isotropic_lame_and_cubic_consistent() -> None:
    E, nu = 200e3, 0.3
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    C = SSR4.isotropic_E_nu(E, nu)
    torch.testing.assert_close(SSR4.isotropic_lame(lam, mu).data, C.data)
    torch.testing.assert_close(SSR4.cubic(lam + 2 * mu, lam, 2 * mu).data, C.data)
    batched = SSR4.isotropic_E_nu(Scalar([1.0, 2.0]), 0.25)
    assert batched.batch_shape == (2,)
    torch.testing.assert_close(batched.data[1], 2 * batched.data[0])


def test_rewrap_inherits_and_rejects() -> None:
    a = SR2(torch.zeros(2, 5, 6), sub_batch_ndim=1)
    b = SR2(a)
    assert b.sub_batch_ndim == 1 and b.data is a.data
    assert SR2(a, sub_batch_ndim=1).sub_batch_ndim == 1
    with pytest.raises(ValueError, match="sub_batch_ndim=0 disagrees"):
        SR2(a, sub_batch_ndim=0)
    with pytest.raises(TypeError, match=r"Scalar: cannot wrap a SR2"):
        Scalar(a)
    with pytest.raises(TypeError, match="abstract"):
        nt.TensorWrapper(torch.zeros(1))


def test_metadata_validation() -> None:
    with pytest.raises(ValueError, match="k_state"):
        SR2(torch.zeros(3, 6), k_ndim=1, k_state=())
    with pytest.raises(ValueError, match="invalid region state"):
        SR2(torch.zeros(3, 6), k_ndim=1, k_state=("bogus",), k_pairing=(None,))
    with pytest.raises(ValueError, match="k_pairing"):
        SR2(
            torch.zeros(1, 2, 6), sub_batch_ndim=1, k_ndim=1, k_state=("broadcast",), k_pairing=(3,)
        )
    with pytest.raises(ValueError, match="storage size 1"):
        SR2(
            torch.zeros(2, 2, 6), sub_batch_ndim=1, k_ndim=1, k_state=("broadcast",), k_pairing=(0,)
        )
    with pytest.raises(ValueError, match="do not fit"):
        SR2(torch.zeros(6), sub_batch_ndim=1)


def test_dtype_and_device_mismatch() -> None:
    a = SR2(torch.zeros(2, 6, dtype=torch.float64))
    b = SR2(torch.zeros(2, 6, dtype=torch.float32))
    with pytest.raises(TypeError, match=r"dtype mismatch \(torch.float64 vs torch.float32\)"):
        a + b
    with pytest.raises(TypeError, match="dtype mismatch"):
        SSR4.identity_sym() @ b
    with pytest.raises(TypeError, match="dtype mismatch"):
        SR2(torch.zeros(2, 5, 6, dtype=torch.float64), sub_batch_ndim=1) * Scalar(
            torch.ones(2, dtype=torch.float32)
        )
    m = SR2(torch.zeros(2, 6, dtype=torch.float64, device="meta"))
    with pytest.raises(ValueError, match="device mismatch"):
        a + m


def test_literals_take_wrapper_dtype() -> None:
    a = SR2(torch.ones(2, 6, dtype=torch.float32))
    assert (a * 2.5).dtype == torch.float32
    assert (Scalar(torch.ones(2, dtype=torch.float32)) + 1.5).dtype == torch.float32
    assert (1.0 / Scalar(torch.ones(2, dtype=torch.float32))).dtype == torch.float32


def test_operator_type_rules() -> None:
    s, v, w = Scalar(2.0), Vec(1, 2, 3), WR2(1, 2, 3)
    assert type(s * v) is Vec and type(v * s) is Vec and type(v / s) is Vec
    assert type(v + s) is Vec and type(s + v) is Vec
    assert (s * v).data.tolist() == [2, 4, 6]
    with pytest.raises(TypeError, match="Vec and WR2"):
        v + w
    with pytest.raises(TypeError, match=r"raw torch\.Tensor"):
        v * torch.ones(3)
    with pytest.raises(TypeError, match="divide a Python number"):
        1.0 / v
    assert (s**2).data.item() == 4.0 and (2.0**s).data.item() == 4.0
    assert abs(Scalar(-3.0)).data.item() == 3.0
    assert (-v).data.tolist() == [-1, -2, -3]
    assert (v * v).data.tolist() == [1, 4, 9]


def test_from_value_and_arange() -> None:
    ref = SR2(torch.zeros(6, dtype=torch.float32))
    s = Scalar.from_value(2.0, like=ref)
    assert s.dtype == torch.float32 and s.data.item() == 2.0
    assert Scalar.arange(3).data.tolist() == [0.0, 1.0, 2.0]
    assert Scalar.arange(3).dtype == torch.float64


def test_zeros_like_keeps_k_and_batch() -> None:
    t = SR2(
        torch.zeros(6, 4, 2, 6), sub_batch_ndim=1, k_ndim=1, k_state=("full",), k_pairing=(None,)
    )
    z = Scalar.zeros_like(t)
    assert tuple(z.shape) == (6, 4, 2) and z.k_ndim == 1 and z.sub_batch_ndim == 1
    z2 = Vec.zeros_like(t, sub_batch_shape=(5, 3))
    assert tuple(z2.shape) == (6, 4, 5, 3, 3) and z2.sub_batch_ndim == 2


def test_vec_helpers_and_conversions() -> None:
    v = nt.vec_from_scalars(Scalar([1.0, 2.0]), Scalar(3.0), Scalar(4.0))
    assert v.data.tolist() == [[1, 3, 4], [2, 3, 4]]
    assert nt.vec_component(v, 1).data.tolist() == [3, 3]
    a, b = Vec(1, 0, 0), Vec(0, 1, 0)
    assert nt.cross(a, b).data.tolist() == [0, 0, 1]
    assert nt.vdot(a, b).data.item() == 0.0
    assert type(nt.outer(a, b)) is R2
    with pytest.raises(TypeError, match="same type"):
        nt.inner(a, WR2(0, 1, 0))
    m = R2(torch.rand(3, 3, dtype=torch.float64))
    w = nt.skew(m)
    x = torch.rand(3, dtype=torch.float64)
    # W x = w × x
    torch.testing.assert_close(nt.r2_from_wr2(w).data @ x, torch.linalg.cross(w.data, x))
    full = nt.r2_from_sr2(nt.sym(m)).data + nt.r2_from_wr2(w).data
    torch.testing.assert_close(full, m.data)
    torch.testing.assert_close(nt.transpose(m).data, m.data.T)
    torch.testing.assert_close(m.T.data, m.data.T)
    torch.testing.assert_close((m @ Vec(x)).data, m.data @ x)


def test_repr_and_misc() -> None:
    a = SR2(torch.zeros(2, 5, 6), sub_batch_ndim=1)
    assert "sub_batch_ndim=1" in repr(a)
    assert a.numel() == 60 and len(a) == 2
    assert a.clone().data is not a.data
    assert a.to(torch.float32).dtype == torch.float32
