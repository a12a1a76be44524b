"""Shared helpers for the neml2-tensors tests."""

from __future__ import annotations

from typing import Any

import pytest
import torch


@pytest.fixture
def tol(dtype: torch.dtype) -> dict[str, Any]:
    """allclose tolerances appropriate for the dtype under test."""
    if dtype == torch.float32:
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-9, "atol": 1e-9}
