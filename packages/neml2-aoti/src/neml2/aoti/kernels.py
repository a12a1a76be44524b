"""The native CPU kernels of ``libneml2.so`` that neml2-models' eager route uses when available.

neml2-models finds this module through the ``neml2.kernels`` entry point group (declared in
neml2-aoti's ``pyproject.toml``) and never imports neml2-aoti's extension module itself. Each
kernel is a drop-in for the ATen ops it replaces on plain CPU float32/float64 tensors; the
caller decides where that holds.

* ``batched_dense_solve(A, b)``: ``A⁻¹ b`` per batch element, partial-pivoting LU, small n;
* ``batched_parts_solve(parts, n, b)``: the same for a matrix given by its nonzero blocks;
* ``sum_of_products(terms)``: ``Σ scale·a·b`` in one pass (``a`` may be None: ``scale·b``);
* ``Workspace`` / ``workspace_scope`` / ``workspace_empty``: memory for those outputs that is
  reused inside a scope (no fresh pages per Newton iteration); ``workspace_free_bytes`` reports
  what the calling thread's workspace holds free.

The SIMD path of the kernels follows ``NEML2_SIMD`` (:func:`neml2.aoti.simd_path`).
"""

from __future__ import annotations

from neml2.aoti._aoti import (
    DEFAULT_RETAINED_WORKSPACE_BYTES,
    Workspace,
    batched_dense_solve,
    batched_parts_solve,
    sum_of_products,
    workspace_empty,
    workspace_free_bytes,
    workspace_scope,
)

__all__ = [
    "DEFAULT_RETAINED_WORKSPACE_BYTES",
    "Workspace",
    "batched_dense_solve",
    "batched_parts_solve",
    "sum_of_products",
    "workspace_empty",
    "workspace_free_bytes",
    "workspace_scope",
]
