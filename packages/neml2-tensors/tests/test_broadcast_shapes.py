"""``broadcast_shapes``: the pure-Python path agrees with ``torch.broadcast_shapes``."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings, strategies as st

from neml2.tensors._kernels import broadcast_shapes

dims = st.lists(st.sampled_from([0, 1, 2, 3]), max_size=4).map(tuple)


@settings(deadline=None)  # the first call pays torch's one-time setup
@given(st.lists(dims, min_size=1, max_size=4))
def test_agrees_with_torch(shapes: list[tuple[int, ...]]) -> None:
    try:
        want = tuple(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]
    except RuntimeError:
        with pytest.raises(RuntimeError):
            broadcast_shapes(*shapes)
        return
    assert broadcast_shapes(*shapes) == want


def test_sizes_and_no_shapes() -> None:
    assert broadcast_shapes(torch.Size([4, 1]), (3,)) == (4, 3)
    assert broadcast_shapes() == ()


def test_mismatch_names_the_shapes() -> None:
    with pytest.raises(RuntimeError, match=r"\(2,\), \(3,\)"):
        broadcast_shapes((2,), (3,))
