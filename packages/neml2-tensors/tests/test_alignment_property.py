"""Property test: the fast alignment paths agree with the general n-ary alignment."""

from __future__ import annotations

import torch
from hypothesis import given, settings, strategies as st

from neml2.tensors import SR2, Scalar
from neml2.tensors._align import binary, nary
from neml2.tensors._wrapper import TensorWrapper

Layout = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


@st.composite
def layouts(draw: st.DrawFn) -> tuple[Layout, Layout]:
    """Two (K, dynamic batch, sub) shapes that broadcast region by region."""

    def region(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        full = tuple(draw(st.integers(1, 3)) for _ in range(n))
        ra = draw(st.integers(0, n))
        rb = draw(st.integers(0, n))
        a = tuple(1 if draw(st.booleans()) else s for s in full[n - ra :])
        b = tuple(1 if draw(st.booleans()) else s for s in full[n - rb :])
        return a, b

    k = region(draw(st.integers(0, 1)))
    d = region(draw(st.integers(0, 2)))
    s = region(draw(st.integers(0, 2)))
    return (k[0], d[0], s[0]), (k[1], d[1], s[1])


def make(cls: type[TensorWrapper], lay: Layout, g: torch.Generator) -> TensorWrapper:
    k, d, s = lay
    data = torch.rand((*k, *d, *s, *cls.BASE_SHAPE), dtype=torch.float64, generator=g)
    n = len(k)
    return cls(data, sub_batch_ndim=len(s), k_ndim=n, k_state=("full",) * n, k_pairing=(None,) * n)


def reference(w: TensorWrapper, kmax: int, dmax: int, smax: int) -> torch.Tensor:
    """Pad each region independently with numpy-style unsqueezes (base padded for Scalar)."""
    d = w.data
    for _ in range(kmax - w.k_ndim):
        d = d.unsqueeze(0)
    for _ in range(dmax - w.dynamic_batch_ndim):
        d = d.unsqueeze(kmax)
    for _ in range(smax - w.sub_batch_ndim):
        d = d.unsqueeze(kmax + dmax)
    return d if w.BASE_NDIM else d.unsqueeze(-1)


@settings(max_examples=60, deadline=None)
@given(layouts(), st.booleans())
def test_fast_and_general_paths_agree(lays: tuple[Layout, Layout], scalar_rhs: bool) -> None:
    g = torch.Generator().manual_seed(0)
    a = make(SR2, lays[0], g)
    b = make(Scalar if scalar_rhs else SR2, lays[1], g)
    fast = binary(a, b, torch.mul, SR2, True)
    slow = nary(SR2, torch.mul, (a, b))
    kmax = max(a.k_ndim, b.k_ndim)
    dmax = max(a.dynamic_batch_ndim, b.dynamic_batch_ndim)
    smax = max(a.sub_batch_ndim, b.sub_batch_ndim)
    ref = reference(a, kmax, dmax, smax) * reference(b, kmax, dmax, smax)
    torch.testing.assert_close(fast.data, ref)
    torch.testing.assert_close(slow.data, ref)
    for w in (fast, slow):
        assert (w.k_ndim, w.sub_batch_ndim) == (kmax, smax)
        assert w.dynamic_batch_ndim == dmax
