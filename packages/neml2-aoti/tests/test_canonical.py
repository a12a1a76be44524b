"""The canonical input boundary of libneml2.so (presence, base shape, dtype, device, batch)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from neml2.aoti import FatalError, canonicalize_inputs

NAMES = ["strain", "T", "t"]
BASES = [[6], [], [2, 3]]


def _inputs(
    device: torch.device, dtype: torch.dtype, *batches: tuple[int, ...]
) -> dict[str, torch.Tensor]:
    return {
        n: torch.randn((*b, *base), device=device, dtype=dtype)
        for n, b, base in zip(NAMES, batches, BASES, strict=True)
    }


def test_broadcast_matches_torch(device: torch.device, dtype: torch.dtype) -> None:
    inputs = _inputs(device, dtype, (4, 1), (3,), ())
    values, batch = canonicalize_inputs(inputs, NAMES, BASES, device, dtype)
    expected_batch = np.broadcast_shapes((4, 1), (3,), ())
    assert tuple(batch) == expected_batch
    assert list(values) == sorted(NAMES)
    for name, base in zip(NAMES, BASES, strict=True):
        value = values[name]
        assert value.shape == (*expected_batch, *base)
        assert value.is_contiguous()
        assert value.dtype == dtype and value.device.type == device.type
        src = inputs[name]
        reference = src.expand(*expected_batch, *base)
        assert torch.equal(value, reference)


def test_batchless_inputs_stay_batchless(device: torch.device, dtype: torch.dtype) -> None:
    """Batch-less in, batch-less out (NEML2 v3 and every route): batch () is kept."""
    inputs = _inputs(device, dtype, (), (), ())
    values, batch = canonicalize_inputs(inputs, NAMES, BASES, device, dtype)
    assert batch == []
    for name, base in zip(NAMES, BASES, strict=True):
        assert values[name].shape == tuple(base)
        assert torch.equal(values[name], inputs[name])


def test_missing_input_is_named(device: torch.device, dtype: torch.dtype) -> None:
    inputs = _inputs(device, dtype, (2,), (2,), (2,))
    del inputs["T"]
    with pytest.raises(
        FatalError, match=r"missing input 'T'; the model's inputs are: strain, T, t"
    ):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)


def test_extra_input_is_named(device: torch.device, dtype: torch.dtype) -> None:
    inputs = _inputs(device, dtype, (2,), (2,), (2,))
    inputs["stress"] = torch.zeros(2, 6, device=device, dtype=dtype)
    with pytest.raises(FatalError, match=r"unexpected input 'stress'"):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)


@pytest.mark.parametrize("shape", [(2, 1), (5,), (6, 2)])
def test_wrong_base_shape(device: torch.device, dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    inputs = _inputs(device, dtype, (2,), (2,), (2,))
    inputs["strain"] = torch.zeros(shape, device=device, dtype=dtype)
    expected = "[" + ", ".join(map(str, shape)) + "]"
    pattern = re.escape(
        f"input 'strain': non-canonical shape {expected}, expected trailing base shape [6]"
    )
    with pytest.raises(FatalError, match=pattern):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)


def test_dtype_mismatch_is_never_cast(device: torch.device, dtype: torch.dtype) -> None:
    other = torch.float32 if dtype == torch.float64 else torch.float64
    inputs = _inputs(device, dtype, (2,), (2,), (2,))
    inputs["t"] = inputs["t"].to(other)
    with pytest.raises(
        FatalError, match=r"input 't' has dtype .* but the model expects .*never cast"
    ):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)


def test_device_mismatch(dtype: torch.dtype) -> None:
    inputs = _inputs(torch.device("cpu"), dtype, (2,), (2,), (2,))
    with pytest.raises(
        FatalError, match=r"input 'strain' is on device cpu but the model runs on meta"
    ):
        canonicalize_inputs(inputs, NAMES, BASES, torch.device("meta"), dtype)


def test_incompatible_batches_are_named(device: torch.device, dtype: torch.dtype) -> None:
    inputs = _inputs(device, dtype, (4,), (3,), ())
    with pytest.raises(
        FatalError,
        match=r"input 'T': batch shape \[3\] does not broadcast with .*\[4\].*\(strain\)",
    ):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)


def test_names_and_shapes_must_pair(device: torch.device, dtype: torch.dtype) -> None:
    with pytest.raises(FatalError, match="3 input names but 2 base shapes"):
        canonicalize_inputs({}, NAMES, BASES[:2], device, dtype)
