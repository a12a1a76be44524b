"""Shared helpers for the neml2-tensors tests."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode


@pytest.fixture
def tol(dtype: torch.dtype) -> dict[str, Any]:
    """allclose tolerances appropriate for the dtype under test."""
    if dtype == torch.float32:
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-9, "atol": 1e-9}


class OpRecorder(TorchDispatchMode):  # type: ignore[no-untyped-call]
    """Pass-through dispatch mode recording the aten ops it sees (stands in for a tracer)."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops.append(str(func.overloadpacket))
        return func(*args, **(kwargs or {}))


@pytest.fixture
def op_recorder() -> OpRecorder:
    """A fresh :class:`OpRecorder` (enter it with ``with``)."""
    return OpRecorder()
