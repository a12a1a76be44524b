"""Small batched dense solves through neml2-aoti's native kernel, when it is usable.

``libneml2.so`` (package neml2-aoti, optional) has ``batched_dense_solve``: a per-element
partial-pivoting LU that beats generic batched LAPACK by 3-4x for n of about 5-30. It is used
only where it is exactly a drop-in: plain CPU float32/float64 tensors, n <= :data:`NATIVE_MAX_N`,
no autograd or forward-AD recording, no torch.compile/export tracing, no dispatch or functorch
mode. Everything else goes to ``torch.linalg.solve_ex`` (non-finite results for singular
elements either way). ``batched_parts_solve`` does the same for a matrix given by its nonzero
blocks (an equation system's tangent blocks, :meth:`neml2.es.AssembledMatrix.from_parts`), which
it reads in place: the dense matrix is never assembled. neml2-models never requires neml2-aoti:
the kernel is looked up once (:func:`neml2._native.native`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from neml2._native import native, plain_cpu
from neml2.es import MatrixPart, broadcast_batch

__all__ = [
    "NATIVE_MAX_N",
    "dense_solve",
    "native_dense_solve",
    "native_parts_solve",
    "native_usable",
    "parts_solve",
]

NATIVE_MAX_N = 32
_Solve = Callable[..., torch.Tensor]  # (A, b, *, simd=None, overwrite_b=False) -> x


def native_dense_solve() -> _Solve | None:
    """The native ``batched_dense_solve`` (:func:`neml2._native.native`), else ``None``."""
    return native("batched_dense_solve")


def native_usable(a: torch.Tensor, rhs: torch.Tensor) -> bool:
    """Whether :func:`dense_solve` of ``a``, ``rhs`` would take the native kernel."""
    return native_dense_solve() is not None and _plain_small(a.shape[-1], rhs, a)


def _plain_small(n: int, rhs: torch.Tensor, *mats: torch.Tensor) -> bool:
    """n small, every tensor a plain CPU float32/float64 one of rhs's dtype, nothing recorded."""
    return n <= NATIVE_MAX_N and plain_cpu(rhs, *mats)


def native_parts_solve() -> Callable[..., torch.Tensor] | None:
    """The native ``batched_parts_solve`` (:func:`neml2._native.native`), else ``None``."""
    return native("batched_parts_solve")


def parts_solve(
    parts: Sequence[MatrixPart], n: int, rhs: torch.Tensor, overwrite_rhs: bool = False
) -> torch.Tensor | None:
    """``A⁻¹ rhs`` for the ``(..., n, n)`` matrices that are zero outside ``parts`` (each
    ``(..., rows, cols)`` at flat offsets), ``rhs (..., n, k)`` with the same batch, by the native
    kernel reading the parts in place; None when that kernel does not apply. ``overwrite_rhs``:
    the result may be solved in ``rhs``'s memory (see ``batched_parts_solve``)."""
    fn = native_parts_solve()
    values = [p.value for p in parts]
    if fn is None or n < 2 or not _plain_small(n, rhs, *values):
        return None
    batch = rhs.shape[:-2]
    if any(v.shape[:-2] != batch for v in values):
        return None
    flat = [(p.row, p.col, p.value.reshape(-1, *p.value.shape[-2:])) for p in parts]
    x: torch.Tensor = fn(flat, n, rhs.reshape(-1, n, rhs.shape[-1]), overwrite_b=overwrite_rhs)
    return x.reshape(rhs.shape)


def dense_solve(a: torch.Tensor, rhs: torch.Tensor, overwrite_rhs: bool = False) -> torch.Tensor:
    """``a⁻¹ rhs`` for ``a (..., n, n)``, ``rhs (..., n, k)`` (batches broadcast);
    ``overwrite_rhs``: the native kernel may solve in ``rhs``'s memory."""
    fn = native_dense_solve()
    if fn is None or not native_usable(a, rhs):
        x: torch.Tensor = torch.linalg.solve_ex(a, rhs, check_errors=False)[0]
        return x
    n, k = a.shape[-1], rhs.shape[-1]
    batch = broadcast_batch(a.shape[:-2], rhs.shape[:-2])
    A = a.expand((*batch, n, n)).reshape(-1, n, n)
    b = rhs.expand((*batch, n, k)).reshape(-1, n, k)
    return fn(A, b, overwrite_b=overwrite_rhs).reshape((*batch, n, k))
