"""Where large eager results are written: an output allocator a higher layer may install.

A Newton solve evaluates the same batch-sized contractions every iteration, each into a fresh
output. For outputs above glibc's mmap threshold every iteration page-faults that memory in
again (at 10^4 Chaboche points one Mandel projection of a ``(19, B, 6)`` tangent took 5.9 ms
into fresh memory and 2.2 ms into reused memory). neml2-tensors depends on torch alone, so it
does not own such a workspace: a higher layer installs an allocator
(:func:`install_output_allocator`; neml2-models installs neml2-aoti's per-solve workspace, which
reuses memory only inside a solve and touches no process-wide allocator setting), and the eager
fast paths that write large results take their output from :func:`empty_output`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from neml2.tensors._eager import plain_eager

__all__ = ["OUTPUT_MIN_BYTES", "OutputAllocator", "empty_output", "install_output_allocator"]

OutputAllocator = Callable[[Sequence[int], torch.dtype], torch.Tensor]
"""``(shape, dtype) -> `` an uninitialized contiguous CPU tensor."""

OUTPUT_MIN_BYTES = 1 << 20
"""Bytes: smaller outputs come from torch (malloc reuses those without page faults)."""

_allocator: OutputAllocator | None = None


def install_output_allocator(allocator: OutputAllocator | None) -> OutputAllocator | None:
    """Make ``allocator`` the source of large eager outputs (None: torch's); returns the
    previous one."""
    global _allocator
    previous, _allocator = _allocator, allocator
    return previous


def empty_output(shape: Sequence[int], like: torch.Tensor) -> torch.Tensor | None:
    """An uninitialized contiguous tensor of ``shape`` and ``like``'s dtype from the installed
    allocator, for a result that an ``out=`` variant may write: at least
    :data:`OUTPUT_MIN_BYTES`, plain eager CPU floating data, nothing recorded for autograd.
    None otherwise (the caller lets the op allocate)."""
    if _allocator is None or like.device.type != "cpu" or not like.is_floating_point():
        return None
    n = 1
    for s in shape:
        n *= s
    if n * like.element_size() < OUTPUT_MIN_BYTES or not plain_eager(like):
        return None
    if like.requires_grad and torch.is_grad_enabled():
        return None
    return _allocator(shape, like.dtype)
