"""What the other neml2 distributions build on, beyond the tensor types of :mod:`neml2.tensors`.

neml2-models (the eager chain rule, the assembly of equation systems, the native kernels'
adapter) imports these from here and nowhere else in neml2-tensors, so the private modules
behind them can change freely:

* :func:`plain_eager`: whether an operation runs in plain eager mode, where eager-only fast
  paths (cached projectors, native kernels) are safe;
* :func:`install_output_allocator` / :func:`empty_output`: the source of large eager outputs
  (neml2-aoti's workspace when installed, else torch's);
* :func:`broadcast_shapes`: a typed, fast ``torch.broadcast_shapes``;
* :func:`is_number`: a Python ``int`` or ``float`` (not ``bool``), a scalar coefficient;
* :func:`keep_large_allocations` / :func:`apply_environment_opt_in`: the opt-in allocation
  policy (glibc only), applied only when called or asked for by ``NEML2_KEEP_LARGE_ALLOCATIONS``.
"""

from __future__ import annotations

from neml2.tensors._allocator import apply_environment_opt_in, keep_large_allocations
from neml2.tensors._eager import plain_eager
from neml2.tensors._kernels import broadcast_shapes
from neml2.tensors._outputs import empty_output, install_output_allocator
from neml2.tensors._primitive import _is_number as is_number

__all__ = [
    "apply_environment_opt_in",
    "broadcast_shapes",
    "empty_output",
    "install_output_allocator",
    "is_number",
    "keep_large_allocations",
    "plain_eager",
]
