"""Python exception classes of neml2-aoti used when neml2-models is not installed."""

from __future__ import annotations

import torch


class ConvergenceError(RuntimeError):
    """A recoverable solver failure (divergence, iteration cap, substepping exhausted).

    ``converged_mask`` and ``unknowns`` hold the per-element converged mask and the unknowns
    when ``NEML2_CAPTURE_SOLVE_FAILURE`` captured them, else ``None``.
    """

    converged_mask: torch.Tensor | None = None
    unknowns: torch.Tensor | None = None
