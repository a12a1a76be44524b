"""Type stub of the pybind11 module ``neml2.aoti._aoti`` (libneml2.so bindings)."""

import torch

ConvergenceError: type[RuntimeError]
FatalError: type[RuntimeError]

def canonicalize_inputs(
    inputs: dict[str, torch.Tensor],
    names: list[str],
    base_shapes: list[list[int]],
    device: torch.device,
    dtype: torch.dtype,
) -> tuple[dict[str, torch.Tensor], list[int]]:
    """Check and broadcast inputs to the canonical ``(*batch, *base)`` boundary."""

def env_truthy(value: str | None) -> bool:
    """Whether an environment value counts as true (not unset, '', 0, false, no, off)."""

def capture_solve_failure() -> bool:
    """Whether ``NEML2_CAPTURE_SOLVE_FAILURE`` is truthy."""

def _throw(
    kind: str,
    message: str,
    converged_mask: torch.Tensor | None = None,
    unknowns: torch.Tensor | None = None,
) -> None:
    """Throw a C++ exception of the given kind to exercise the translator."""
