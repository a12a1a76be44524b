"""Python functions the eager C++ tests call through neml2::eager::call."""

from __future__ import annotations

import torch

from neml2.aoti import ConvergenceError


def double(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {"y": 2 * inputs["x"]}


def fail_value(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    raise ValueError("boom 42")


def fail_convergence(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    raise ConvergenceError("Newton failed to converge in 25 iterations")


def fail_convergence_captured(inputs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    error = ConvergenceError("diverged")
    error.converged_mask = torch.tensor([True, False])  # type: ignore[attr-defined]
    error.unknowns = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)  # type: ignore[attr-defined]
    raise error


def not_a_dict(inputs: dict[str, torch.Tensor]) -> int:
    return 3


def not_tensors(inputs: dict[str, torch.Tensor]) -> dict[str, str]:
    return {"y": "text"}
