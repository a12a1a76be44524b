"""``flatten_from``: trailing axes merged for every batch size, the empty batch included."""

from __future__ import annotations

import pytest
import torch

from neml2.tensors import flatten_from


@pytest.mark.parametrize(
    ("shape", "k", "want"),
    [
        ((4, 3, 2), 1, (4, 6)),
        ((0, 3, 2), 1, (0, 6)),  # reshape((0, -1)) cannot infer -1 here
        ((2, 0, 3, 2), 2, (2, 0, 6)),
        ((3, 2), 0, (6,)),
        ((3,), 1, (3, 1)),  # nothing after k: one axis of size 1
        ((), 0, (1,)),
        ((0,), 1, (0, 1)),
    ],
)
def test_flatten_from(shape: tuple[int, ...], k: int, want: tuple[int, ...]) -> None:
    t = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    got = flatten_from(t, k)
    assert tuple(got.shape) == want
    assert torch.equal(got.reshape(-1), t.reshape(-1))
