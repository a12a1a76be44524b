"""Large eager outputs from an installed allocator (``neml2.tensors._outputs``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import torch

from neml2.tensors import SR2, _outputs as outputs, _projectors as proj, dev, vol


class Recording:
    """An allocator that hands out ``torch.empty`` tensors and keeps them."""

    def __init__(self) -> None:
        self.made: list[torch.Tensor] = []

    def __call__(self, shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
        t = torch.empty(tuple(shape), dtype=dtype)
        self.made.append(t)
        return t


@pytest.fixture
def recording() -> Iterator[Recording]:
    alloc = Recording()
    previous = outputs.install_output_allocator(alloc)
    try:
        yield alloc
    finally:
        outputs.install_output_allocator(previous)


BIG = outputs.OUTPUT_MIN_BYTES // 8  # float64 elements of the smallest allocator output


def test_only_large_plain_results_use_the_allocator(recording: Recording, op_recorder: Any) -> None:
    like = torch.zeros(1, dtype=torch.float64)
    assert outputs.empty_output((BIG - 1,), like) is None  # small: torch allocates
    assert outputs.empty_output((BIG,), like.long()) is None  # not floating
    with op_recorder:  # a dispatch mode (tracing): no out= into foreign memory
        assert outputs.empty_output((BIG,), like) is None
    grad = like.clone().requires_grad_()
    assert outputs.empty_output((BIG,), grad) is None  # autograd would record the op
    with torch.no_grad():
        assert outputs.empty_output((BIG,), grad) is not None
    t = outputs.empty_output((2, BIG), like.float())
    assert t is not None and t.shape == (2, BIG) and t.dtype == torch.float32
    assert len(recording.made) == 2 and recording.made[-1] is t


def test_without_an_allocator_torch_allocates() -> None:
    previous = outputs.install_output_allocator(None)
    try:
        assert outputs.empty_output((BIG,), torch.zeros(1, dtype=torch.float64)) is None
    finally:
        outputs.install_output_allocator(previous)


def test_projection_of_a_large_tangent_writes_the_allocated_output(recording: Recording) -> None:
    """A ``(K, B, 6)`` tangent stored with the Mandel axis outermost (as the forward chain rule
    makes them): ``vol``/``dev`` write into the allocator's memory, with the values of the
    slot-by-slot formulas, in the tangent's memory order."""
    K, B = 19, BIG // (19 * 6) + 1
    g = torch.Generator().manual_seed(0)
    d = torch.randn(6, K, B, generator=g, dtype=torch.float64).permute(1, 2, 0)
    m = d[..., :3].mean(-1, keepdim=True)
    ref_vol = torch.cat([m.expand(K, B, 3), torch.zeros(K, B, 3, dtype=d.dtype)], -1)
    got_vol, got_dev = vol(SR2(d)).data, dev(SR2(d)).data
    assert len(recording.made) == 2
    for got, made in zip((got_vol, got_dev), recording.made, strict=True):
        assert got.data_ptr() == made.data_ptr()
        assert got.stride() == d.stride()
    torch.testing.assert_close(got_vol, ref_vol, rtol=1e-13, atol=1e-14)
    torch.testing.assert_close(got_dev, d - ref_vol, rtol=1e-13, atol=1e-14)
    small = torch.randn(6, K, 10, generator=g, dtype=torch.float64).permute(1, 2, 0)
    proj.apply(small, proj.projectors(small)[1])  # type: ignore[index]
    assert len(recording.made) == 2  # below OUTPUT_MIN_BYTES: torch's own output
