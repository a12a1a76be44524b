"""torch.export (dynamic batch) and torch.compile see through the wrappers."""

from __future__ import annotations

from typing import Any

import torch

import neml2.tensors as nt
from neml2.tensors import SR2, SSR4, Scalar


def model(e: SR2, C: SSR4, s: Scalar) -> tuple[SR2, Scalar]:
    sig = C @ e
    d = nt.dev(sig)
    return d * s, nt.norm(d) + nt.det(nt.inv(sig + 3.0 * SR2.identity(dtype=s.dtype)))


class Wrapped(torch.nn.Module):
    def forward(self, e: SR2, C: SSR4, s: Scalar) -> tuple[SR2, Scalar]:
        return model(e, C, s)


def _inputs(n: int) -> tuple[SR2, SSR4, Scalar]:
    g = torch.Generator().manual_seed(n)
    e = SR2(1e-3 * torch.rand(n, 6, dtype=torch.float64, generator=g))
    s = Scalar(torch.rand(n, dtype=torch.float64, generator=g))
    return e, SSR4.isotropic_E_nu(200e3, 0.3), s


def _check(got: tuple[SR2, Scalar], ref: tuple[SR2, Scalar]) -> None:
    assert type(got[0]) is SR2 and type(got[1]) is Scalar
    torch.testing.assert_close(got[0].data, ref[0].data, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(got[1].data, ref[1].data, rtol=1e-12, atol=1e-12)


def test_export_dynamic_batch() -> None:
    batch = torch.export.Dim("batch", min=1, max=1_000_000)
    ep = torch.export.export(
        Wrapped(), _inputs(7), dynamic_shapes=([{0: batch}], [None], [{0: batch}])
    )
    mod = ep.module()
    for n in (1, 7, 1000):
        args = _inputs(n)
        _check(mod(*args), model(*args))


def test_compile_matches_eager() -> None:
    compiled = torch.compile(model, dynamic=True)
    for n in (3, 11):
        args = _inputs(n)
        _check(compiled(*args), model(*args))


def test_torch_func_sees_through_wrappers() -> None:
    x = SR2(torch.rand(5, 6, dtype=torch.float64))
    out = torch.func.vmap(lambda s: nt.dev(s) * nt.norm(s))(x)
    assert type(out) is SR2
    torch.testing.assert_close(out.data, (nt.dev(x) * nt.norm(x)).data)
    x0 = SR2.fill(2.0, 3.0, 4.0, 0.1, 0.2, 0.3)
    jac: Any = torch.func.jacrev(nt.inv)(x0)
    assert type(jac) is SR2
    dense = torch.func.jacrev(lambda d: nt.inv(SR2(d)).data)(x0.data)
    torch.testing.assert_close(jac.data.data, dense)
