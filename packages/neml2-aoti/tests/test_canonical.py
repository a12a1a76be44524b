"""The canonical input boundary of libneml2.so (presence, sub-batch and base shape, dtype, device,
batch): the one implementation, which the eager C++ route's bridge calls too."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from neml2.aoti import FatalError, broadcast_batch_shapes, canonicalize_inputs

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


def test_sub_batch_shapes(device: torch.device, dtype: torch.dtype) -> None:
    subs = [[], [3], []]
    inputs = _inputs(device, dtype, (2,), (2, 3), ())
    values, batch = canonicalize_inputs(inputs, NAMES, BASES, device, dtype, sub_batch_shapes=subs)
    assert batch == [2]
    assert values["T"].shape == (2, 3) and values["t"].shape == (2, 2, 3)
    inputs["T"] = torch.zeros(2, 4, device=device, dtype=dtype)
    pattern = re.escape(
        "input 'T': non-canonical shape [2, 4], expected trailing shape [3] (sub-batch shape [3], "
        "base shape []; canonical shape is (*batch, *sub_batch, *base))"
    )
    with pytest.raises(FatalError, match=pattern):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype, sub_batch_shapes=subs)
    with pytest.raises(FatalError, match="3 input names but 1 sub-batch shapes"):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype, sub_batch_shapes=[[3]])


def test_optional_names_and_the_noun(device: torch.device, dtype: torch.dtype) -> None:
    """Tangents: absent names are skipped, the messages say "tangent"."""
    t = torch.ones(4, device=device, dtype=dtype)
    values, batch = canonicalize_inputs(
        {"T": t}, NAMES, BASES, device, dtype, required=False, what="tangent"
    )
    assert list(values) == ["T"] and batch == [4]
    with pytest.raises(FatalError, match=r"unexpected tangent 'stress'; the model's inputs are: "):
        canonicalize_inputs(
            {"stress": t}, NAMES, BASES, device, dtype, required=False, what="tangent"
        )
    with pytest.raises(FatalError, match=r"missing tangent 'strain'"):
        canonicalize_inputs({"T": t}, NAMES, BASES, device, dtype, what="tangent")


def test_a_value_that_is_not_a_tensor_is_named(device: torch.device, dtype: torch.dtype) -> None:
    inputs: dict[str, object] = {**_inputs(device, dtype, (2,), (2,), (2,)), "T": [1.0, 2.0]}
    with pytest.raises(TypeError, match=r"inputs\['T'\] is a list, expected a torch\.Tensor"):
        canonicalize_inputs(inputs, NAMES, BASES, device, dtype)  # type: ignore[arg-type]


def test_broadcast_batch_shapes() -> None:
    assert broadcast_batch_shapes([[4, 1], [3], []]) == [4, 3]
    assert broadcast_batch_shapes([]) == []
    with pytest.raises(FatalError, match=re.escape("batch shapes [4], [3] do not broadcast")):
        broadcast_batch_shapes([[4], [3]])
