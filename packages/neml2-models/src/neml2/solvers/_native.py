"""Small batched dense solves through neml2-aoti's native kernel, when it is usable.

``libneml2.so`` (package neml2-aoti, optional) has ``batched_dense_solve``: a per-element
partial-pivoting LU that beats generic batched LAPACK by 3-4x for n of about 5-30. It is used
only where it is exactly a drop-in: plain CPU float32/float64 tensors, n <= :data:`NATIVE_MAX_N`,
no autograd or forward-AD recording, no torch.compile/export tracing, no dispatch or functorch
mode. Everything else goes to ``torch.linalg.solve_ex`` (non-finite results for singular
elements either way). neml2-models never requires neml2-aoti: the import is attempted once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import torch
from torch.autograd import forward_ad

from neml2.es import broadcast_batch
from neml2.tensors._eager import plain_eager

__all__ = ["NATIVE_MAX_N", "dense_solve", "native_dense_solve", "native_usable"]

NATIVE_MAX_N = 32
_Solve = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
_UNSET: list[_Solve | None] = []
_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor


def native_dense_solve() -> _Solve | None:
    """``neml2.aoti._aoti.batched_dense_solve`` if neml2-aoti is importable, else ``None``."""
    if not _UNSET:
        try:
            fn = getattr(importlib.import_module("neml2.aoti._aoti"), "batched_dense_solve", None)
        except ImportError:
            fn = None
        _UNSET.append(fn if callable(fn) else None)
    return _UNSET[0]


def native_usable(a: torch.Tensor, rhs: torch.Tensor) -> bool:
    """Whether :func:`dense_solve` of ``a``, ``rhs`` would take the native kernel."""
    if native_dense_solve() is None or a.shape[-1] > NATIVE_MAX_N or a.dtype != rhs.dtype:
        return False
    if a.dtype not in (torch.float64, torch.float32) or a.device.type != "cpu":
        return False
    if not plain_eager(a, rhs):
        return False
    if torch.is_grad_enabled() and (a.requires_grad or rhs.requires_grad):
        return False
    if forward_ad._current_level >= 0:
        return False
    return not (_is_wrapped(a) or _is_wrapped(rhs))


def dense_solve(a: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """``a⁻¹ rhs`` for ``a (..., n, n)``, ``rhs (..., n, k)`` (batches broadcast)."""
    fn = native_dense_solve()
    if fn is None or not native_usable(a, rhs):
        x: torch.Tensor = torch.linalg.solve_ex(a, rhs, check_errors=False)[0]
        return x
    n, k = a.shape[-1], rhs.shape[-1]
    batch = broadcast_batch(a.shape[:-2], rhs.shape[:-2])
    A = a.expand((*batch, n, n)).reshape(-1, n, n)
    b = rhs.expand((*batch, n, k)).reshape(-1, n, k)
    return fn(A, b).reshape((*batch, n, k))
