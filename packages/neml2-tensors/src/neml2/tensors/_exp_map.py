"""Exponential map WR2 → MRP (faithful port of the v2 formula, trig of the *squared* norm).

With ``n2 = |w|²`` and ``t = eps(dtype)^(1/3)``::

    a(n2) = tan(n2/2) / (2 n2 cos(n2/2))        (n2 > t),   1/4 + 5 n2²/96   (Taylor)
    exp_map(w) = a(n2) w
    dexp_map(w) = a I + b w⊗w,  b = 2 a'(n2)
              = [n2 sec³(n2/2) + tan(n2/2)(n2 tan(n2/2) − 2) sec(n2/2)] / (2 n2²)   (Taylor: 5 n2/24)
"""

from __future__ import annotations

import torch

from neml2.tensors._align import binary
from neml2.tensors._rotation_types import MRP
from neml2.tensors._second_order import R2
from neml2.tensors._vectors import WR2

T = torch.Tensor


def _coefs(w: T) -> tuple[T, T, T]:
    """(n2, a, b) with the Taylor branch for small ``n2``."""
    n2 = (w * w).sum(-1)
    t = torch.finfo(w.dtype).eps ** (1.0 / 3.0)
    big = n2 > t
    x = torch.where(big, n2, torch.ones_like(n2))
    h = 0.5 * x
    tn, sc = torch.tan(h), 1.0 / torch.cos(h)
    a_big = tn * sc / (2.0 * x)
    b_big = (x * sc**3 + tn * (x * tn - 2.0) * sc) / (2.0 * x * x)
    a = torch.where(big, a_big, 0.25 + 5.0 * n2 * n2 / 96.0)
    b = torch.where(big, b_big, 5.0 * n2 / 24.0)
    return n2, a, b


def _need_wr2(w: object, fn: str) -> None:
    if not isinstance(w, WR2):
        raise TypeError(f"{fn}: expected WR2, got {type(w).__name__}")


def exp_map(w: WR2) -> MRP:
    """``r = a(|w|²) w``."""
    _need_wr2(w, "exp_map")
    _, a, _ = _coefs(w.data)
    return w._like(a.unsqueeze(-1) * w.data, MRP)


def dexp_map(w: WR2) -> R2:
    """``∂ exp_map / ∂ w = a I + b w⊗w`` (3x3)."""
    _need_wr2(w, "dexp_map")
    d = w.data
    _, a, b = _coefs(d)
    eye = torch.eye(3, dtype=d.dtype, device=d.device)
    out = a[..., None, None] * eye + b[..., None, None] * (d.unsqueeze(-1) * d.unsqueeze(-2))
    return w._like(out, R2)


def _jvp(w: T, dw: T) -> T:
    _, a, b = _coefs(w)
    return a.unsqueeze(-1) * dw + (b * (w * dw).sum(-1)).unsqueeze(-1) * w


def jvp_exp_map(w: WR2, dw: WR2) -> MRP:
    """``a dw + b (w · dw) w``."""
    _need_wr2(w, "jvp_exp_map")
    _need_wr2(dw, "jvp_exp_map")
    return binary(w, dw, _jvp, MRP, True)
