"""AD-safe sqrt/exp/tanh/reciprocal: plain-torch values, recompute-style derivatives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch._dynamo.config as dynamo_config

import neml2.tensors as nt
from neml2.tensors import SR2, Scalar

T = torch.Tensor
# (safe op, plain torch op, closed-form first and second derivative)
OPS: dict[str, tuple[Any, Callable[[T], T], Callable[[T], T], Callable[[T], T]]] = {
    "sqrt": (nt.safe_sqrt, torch.sqrt, lambda x: 0.5 * x**-0.5, lambda x: -0.25 * x**-1.5),
    "exp": (nt.safe_exp, torch.exp, torch.exp, torch.exp),
    "tanh": (
        nt.safe_tanh,
        torch.tanh,
        lambda x: 1.0 / torch.cosh(x) ** 2,
        lambda x: -2.0 * torch.tanh(x) / torch.cosh(x) ** 2,
    ),
    "reciprocal": (nt.safe_reciprocal, torch.reciprocal, lambda x: -(x**-2), lambda x: 2 * x**-3),
}


def _x(n: int, dtype: torch.dtype, device: torch.device, seed: int = 0) -> T:
    g = torch.Generator().manual_seed(seed)
    return (0.3 + 2.0 * torch.rand(n, generator=g, dtype=torch.float64)).to(dtype).to(device)


@pytest.mark.parametrize("name", OPS)
def test_values_identical_and_derivatives(
    name: str, dtype: torch.dtype, device: torch.device
) -> None:
    safe, plain, d1, d2 = OPS[name]
    x = _x(7, dtype, device)
    assert torch.equal(safe(x), plain(x))
    w = Scalar(x.reshape(7, 1).expand(7, 3), sub_batch_ndim=1)
    out = safe(w)
    assert type(out) is Scalar and out.sub_batch_ndim == 1 and torch.equal(out.data, plain(w.data))
    assert type(safe(SR2(x[:6]))) is SR2
    rtol, atol = (1e-5, 1e-5) if dtype == torch.float32 else (1e-12, 0.0)
    xr = x.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(safe(xr).sum(), xr, create_graph=True)
    torch.testing.assert_close(g, d1(x), rtol=rtol, atol=atol)
    (h,) = torch.autograd.grad(g.sum(), xr)
    torch.testing.assert_close(h, d2(x), rtol=rtol, atol=atol)
    # forward mode and torch.func transforms
    t = torch.func.jvp(safe, (x,), (torch.ones_like(x),))[1]
    torch.testing.assert_close(t, d1(x), rtol=rtol, atol=atol)
    torch.testing.assert_close(torch.func.jacfwd(safe)(x), torch.diag(d1(x)), rtol=rtol, atol=atol)

    def total(z: T) -> T:
        out: T = safe(z).sum()
        return out

    hess = torch.func.jacfwd(torch.func.grad(total))(x)
    torch.testing.assert_close(hess, torch.diag(d2(x)), rtol=rtol, atol=atol)
    torch.testing.assert_close(
        torch.func.vmap(torch.func.grad(safe))(x), d1(x), rtol=rtol, atol=atol
    )


@pytest.mark.parametrize("name", OPS)
def test_gradcheck(name: str) -> None:
    safe = OPS[name][0]
    x = _x(5, torch.float64, torch.device("cpu"), 1).requires_grad_(True)
    assert torch.autograd.gradcheck(safe, (x,), check_forward_ad=True, check_batched_grad=True)
    assert torch.autograd.gradgradcheck(safe, (x,), check_fwd_over_rev=True)


def test_backward_saves_the_input_not_the_output() -> None:
    x = _x(4, torch.float64, torch.device("cpu")).requires_grad_(True)
    for name, (safe, *_) in OPS.items():
        y = safe(x)
        saved = y.grad_fn.saved_tensors
        assert len(saved) == 1 and saved[0] is x, name


def test_rejects_other_types() -> None:
    with pytest.raises(TypeError, match=r"safe_exp: expected a torch\.Tensor or a neml2 wrapper"):
        nt.safe_exp(2.0)  # type: ignore[call-overload]


class _Grad(torch.nn.Module):
    """Reverse-mode gradient of ``L = Σ f(x)`` traced into the exported graph."""

    def forward(self, x: T) -> T:
        with torch.enable_grad():
            z = x.detach().requires_grad_(True)
            r = nt.safe_sqrt(z) * nt.safe_exp(-z) + nt.safe_tanh(z) * nt.safe_reciprocal(z)
            (g,) = torch.autograd.grad(r.sum(), z)
        return g


@pytest.mark.skipif(
    torch.torch_version.TorchVersion(torch.__version__) < "2.12",
    reason="strict export traces torch.autograd.grad (dynamo's trace_autograd_ops) from torch "
    "2.12 on; torch 2.11 stops at requires_grad_",
)
def test_export_of_reverse_mode_gradient_graph() -> None:
    def ref(x: T) -> T:
        s, e, t = torch.sqrt(x), torch.exp(-x), torch.tanh(x)
        return 0.5 / s * e - s * e + (1 - t * t) / x - t / (x * x)

    x0 = _x(6, torch.float64, torch.device("cpu"), 2)
    batch = torch.export.Dim("batch", min=2, max=1024)
    with dynamo_config.patch(trace_autograd_ops=True):
        ep = torch.export.export(_Grad(), (x0,), dynamic_shapes=({0: batch},), strict=True)
    assert not ep.constants  # no example-time tensor (e.g. a saved output) baked in
    mod = ep.module()
    for n, seed in ((6, 3), (11, 4)):  # new values and a new batch size
        x = _x(n, torch.float64, torch.device("cpu"), seed)
        torch.testing.assert_close(mod(x), ref(x), rtol=1e-12, atol=1e-12)
