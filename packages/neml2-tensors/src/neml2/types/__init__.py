"""NEML2 v3 compatible alias of :mod:`neml2.tensors` (``from neml2.types import SR2, ...``).

``__all__`` lists exactly the names a ``[Tensors] type = Python`` expression sees: the
tensor types plus ``linspace, logspace, stack, cat, where`` and the free functions.
"""

from __future__ import annotations

from neml2.tensors import *  # noqa: F403
from neml2.tensors import __all__ as _all

_INTERNAL = {
    "__version__",
    "TensorWrapper",
    "PrimitiveTensor",
    "equalize_tangent_k",
    "fullify",
    "identity_seed",
    "sub_batch_seed",
    "sum_sub_batch",
}
__all__ = [n for n in _all if n not in _INTERNAL]
