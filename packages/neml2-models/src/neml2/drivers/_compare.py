r"""Tolerance comparison of result tensors with a per-variable error listing.

A value passes when ``torch.testing.assert_close(actual, expected, rtol, atol)`` does, i.e.
:math:`|a - e| \le atol + rtol\,|e|` elementwise with identical shape and dtype. A failure line
reads ``  <key>: max_abs=…, max_rel=…`` (:math:`\max|a-e|` and :math:`\max|a-e|/|e|`).
"""

from __future__ import annotations

import torch

__all__ = ["MAX_LINES", "ComparisonError", "compare", "report"]

MAX_LINES = 10


class ComparisonError(AssertionError):
    """Results differ from their reference (the message lists the variables)."""


def compare(
    key: str, actual: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float
) -> str | None:
    """``None`` if ``actual`` matches ``expected``, else a one-line description."""
    a = actual.detach()
    e = expected.detach().to(a.device)
    if tuple(a.shape) != tuple(e.shape):
        return f"  {key}: shape {list(a.shape)} != reference shape {list(e.shape)}"
    if a.dtype != e.dtype:
        return f"  {key}: dtype {a.dtype} != reference dtype {e.dtype}"
    try:
        torch.testing.assert_close(a, e, rtol=rtol, atol=atol)
    except AssertionError:
        diff = (a - e).abs().double()
        rel = diff / e.abs().double()
        rel = torch.where(diff == 0, torch.zeros_like(rel), rel)
        return f"  {key}: max_abs={diff.max().item():.6e}, max_rel={rel.max().item():.6e}"
    return None


def report(header: str, lines: list[str]) -> str:
    """``header`` followed by at most :data:`MAX_LINES` failure lines."""
    shown = lines[:MAX_LINES]
    more = len(lines) - len(shown)
    tail = [f"  ... and {more} more"] if more > 0 else []
    return "\n".join([header, *shown, *tail])
