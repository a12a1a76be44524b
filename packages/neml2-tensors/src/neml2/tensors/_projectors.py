r"""Cached Mandel projectors for eager ``vol``/``dev`` of SR2 data.

With :math:`e = (1, 1, 1, 0, 0, 0)` the volumetric projector is :math:`P_v = \tfrac13 e e^T`
and the deviatoric one :math:`P_d = I - P_v` (both symmetric), so ``vol A = a P_v`` and
``dev A = a P_d`` for a row of Mandel slots ``a``: one small GEMM over the whole batch instead of
slicing, reducing and concatenating (several times faster for large batches of tangents).

Only plain eager evaluation uses them (:func:`projectors` returns ``None`` under
``torch.compile``/export tracing, a dispatch mode, or non-floating data), so traced graphs keep
their fusable pointwise form and no traced tensor is ever cached.
"""

from __future__ import annotations

import torch

from neml2.tensors._eager import plain_eager
from neml2.tensors._outputs import empty_output

__all__ = ["apply", "projectors"]

_CACHE: dict[tuple[torch.dtype, torch.device], tuple[torch.Tensor, torch.Tensor]] = {}


def _build(dtype: torch.dtype, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.inference_mode(False):  # usable later in autograd-recording code
        vol = torch.zeros(6, 6, dtype=dtype, device=device)
        vol[:3, :3] = 1.0 / 3.0
        dev = torch.eye(6, dtype=dtype, device=device) - vol
    return vol, dev


def projectors(d: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
    """``(P_v, P_d)`` for ``d``'s dtype and device, or ``None`` outside plain eager mode."""
    if not (d.is_floating_point() or d.is_complex()) or not plain_eager(d):
        return None
    key = (d.dtype, d.device)
    p = _CACHE.get(key)
    if p is None:
        p = _CACHE[key] = _build(d.dtype, d.device)
    return p


def apply(d: torch.Tensor, op: torch.Tensor) -> torch.Tensor:
    """``d @ op`` for an unbatched ``(n, n)`` operator on the trailing axis of ``d``, in ``d``'s
    memory order. A batch-innermost ``d`` (stride of the trailing axis not 1) is one GEMM whose
    result keeps that order: stored ``(..., n, B)`` as ``(opᵀ dᵀ)ᵀ``, stored with the trailing
    axis outermost (e.g. a tangent ``(n, K, B)``) as ``opᵀ`` times the ``(n, rest)`` matrix. A
    product written batch-outermost instead would make every later pointwise op mixing the two
    layouts pay for it. A large result of the trailing-axis-outermost case is written into
    :func:`~neml2.tensors._outputs.empty_output` (reused memory inside a Newton solve)."""
    if d.dim() >= 2 and d.stride(-1) != 1:
        if d.mT.is_contiguous():
            return (op.mT @ d.mT).mT
        moved = d.movedim(-1, 0)
        if moved.is_contiguous():
            rows = moved.reshape(moved.shape[0], -1)
            out = empty_output(rows.shape, rows)
            product = op.mT @ rows if out is None else torch.mm(op.mT, rows, out=out)
            return product.reshape(moved.shape).movedim(0, -1)
    return d @ op
