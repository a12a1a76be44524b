"""``neml2.eager._canonical.broadcast_batch`` (libneml2's ``broadcast_batch_shapes``) against
``torch.broadcast_shapes``."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, strategies as st

from neml2.aoti import FatalError
from neml2.eager._canonical import broadcast_batch

_shape = st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3).map(tuple)


@given(st.lists(_shape, min_size=1, max_size=4))
def test_broadcast_batch_is_torch_broadcasting(shapes: list[tuple[int, ...]]) -> None:
    try:
        want = tuple(torch.broadcast_shapes(*shapes))  # type: ignore[no-untyped-call]
    except RuntimeError:
        with pytest.raises(FatalError, match=r"batch shapes .* do not broadcast"):
            broadcast_batch(*shapes)
        return
    assert broadcast_batch(*shapes) == want
