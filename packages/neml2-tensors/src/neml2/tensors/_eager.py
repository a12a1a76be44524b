"""Whether an operation runs in plain eager mode (so an eager-only fast path is safe).

Eager fast paths (cached projectors, GEMM contractions, native kernels) must not appear in
``torch.compile``/export traces, where the pointwise form fuses better and no traced tensor may
be cached, nor under a dispatch mode (fake tensors, profilers that rewrite calls).
"""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

__all__ = ["plain_eager"]


def plain_eager(*tensors: torch.Tensor) -> bool:
    """True outside compile/export tracing and dispatch modes, for plain ``torch.Tensor`` s."""
    if any(type(t) is not torch.Tensor for t in tensors):
        return False
    return not torch.compiler.is_compiling() and _get_current_dispatch_mode() is None
