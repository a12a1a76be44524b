"""Seed (K) machinery: pairing semantics, fullify, exposure on reduction, equalize_tangent_k."""

from __future__ import annotations

import torch

import neml2.tensors as nt
from neml2.tensors import SR2, Scalar
from neml2.tensors._wrapper import TensorWrapper

F64 = torch.float64


def dense(w: TensorWrapper) -> torch.Tensor:
    """Explicit (K, ...) storage: fullify paired axes, materialize sub axes."""
    return nt.fullify(w).materialize().data


def paired(n_k_sites: int = 4, batch: int = 2) -> SR2:
    """A K=1 paired-broadcast SR2 tangent over a sub axis of extent ``n_k_sites``."""
    data = torch.rand(1, batch, n_k_sites, 6, dtype=F64)
    return SR2(data, sub_batch_ndim=1, k_ndim=1, k_state=("broadcast",), k_pairing=(0,))


def test_fullify_is_diagonal() -> None:
    t = paired()
    d = nt.fullify(t).data
    assert tuple(d.shape) == (4, 2, 4, 6)
    ref = torch.einsum("ks,bsi->kbsi", torch.eye(4, dtype=F64), t.data[0])
    torch.testing.assert_close(d, ref)


def test_multiplication_keeps_pairing() -> None:
    t = paired()
    c = Scalar(torch.rand(2, 4, dtype=F64), sub_batch_ndim=1)
    out = t * c
    assert out.k_state == ("broadcast",) and out.k_pairing == (0,)
    torch.testing.assert_close(dense(out), dense(t) * c.data[None, :, :, None])


def test_addition_with_unpaired_fullifies() -> None:
    t = paired()
    u = SR2(
        torch.rand(4, 2, 4, 6, dtype=F64),
        sub_batch_ndim=1,
        k_ndim=1,
        k_state=("full",),
        k_pairing=(None,),
    )
    out = t + u
    assert out.k_state == ("full",) and out.k_pairing == (None,)
    torch.testing.assert_close(out.data, dense(t) + u.data)


def test_sum_sub_batch_exposes_paired_axis() -> None:
    t = paired()
    s = nt.sum(t.sub_batch, 0)
    assert s.sub_batch_ndim == 0 and s.k_state == ("full",) and s.k_pairing == (None,)
    torch.testing.assert_close(s.data, dense(t).sum(2))
    plain = SR2(torch.rand(2, 4, 6, dtype=F64), sub_batch_ndim=1)
    torch.testing.assert_close(nt.sum(plain.sub_batch).data, plain.data.sum(1))
    torch.testing.assert_close(nt.mean(plain.sub_batch).data, plain.data.mean(1))


def test_sum_of_broadcast_storage_paired() -> None:
    data = torch.rand(1, 2, 1, 6, dtype=F64)
    t = SR2(
        data,
        sub_batch_ndim=1,
        sub_batch_state=("broadcast",),
        sub_batch_meta=(3,),
        k_ndim=1,
        k_state=("broadcast",),
        k_pairing=(0,),
    )
    s = nt.sum_sub_batch(t, 0)
    assert s.k_shape == (3,)
    torch.testing.assert_close(s.data, dense(t).sum(2))


def test_sub_batch_seed_is_block_identity() -> None:
    p = SR2(torch.rand(2, 3, 6, dtype=F64), sub_batch_ndim=1)
    seed = nt.sub_batch_seed(p)
    assert seed.k_ndim == 2 and seed.k_pairing == (0, None) and seed.sub_batch_shape == (3,)
    d = dense(seed)  # (3, 6, 2, 3, 6)
    ref = torch.einsum("st,ij->sitj", torch.eye(3, dtype=F64), torch.eye(6, dtype=F64))
    torch.testing.assert_close(d, ref[:, :, None].expand(3, 6, 2, 3, 6))
    plain = nt.identity_seed(p)
    assert plain.k_shape == (6,)
    torch.testing.assert_close(plain.data[:, 1, 2], torch.eye(6, dtype=F64))


def test_equalize_tangent_k() -> None:
    a = paired()
    b = SR2(
        torch.rand(1, 2, 4, 6, dtype=F64),
        sub_batch_ndim=1,
        k_ndim=1,
        k_state=("broadcast",),
        k_pairing=(None,),
    )
    c = SR2(
        torch.rand(4, 2, 4, 6, dtype=F64),
        sub_batch_ndim=1,
        k_ndim=1,
        k_state=("full",),
        k_pairing=(None,),
    )
    out = nt.equalize_tangent_k([a, b, c])
    assert all(o.k_shape == (4,) and o.k_state == ("full",) for o in out)
    torch.testing.assert_close(out[0].data, dense(a))
    torch.testing.assert_close(out[1].data, b.data.expand(4, 2, 4, 6))
    total = out[0] + out[1] + out[2]
    torch.testing.assert_close(total.data, dense(a) + b.data + c.data)
    assert nt.equalize_tangent_k([]) == []


def test_pairing_shifts_with_sub_alignment() -> None:
    t = paired()
    c = Scalar(torch.rand(2, 3, 4, dtype=F64), sub_batch_ndim=2)
    out = t * c
    assert out.sub_batch_ndim == 2 and out.k_pairing == (1,)
    torch.testing.assert_close(dense(out), dense(t)[:, :, None] * c.data[None, ..., None])
