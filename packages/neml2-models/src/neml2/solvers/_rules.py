"""The Newton convergence rules, as small pure functions shared by every route.

All norms are per batch element (``(*B,)`` tensors). These functions are the
reference a C++ port mirrors one to one:

* converged element (throwing solve): ``‖b‖ < atol  or  ‖b‖/‖b0‖ < rtol``, evaluated
  division-free as ``‖b‖ < τ`` with the per-element threshold ``τ = max(atol, rtol·‖b0‖)``
  fixed at the guess (also well defined for ``‖b0‖ = 0``);
* batch status, one reduction and one host sync per iteration: ``m = max_e(‖b_e‖ − τ_e)``;
  ``m`` non-finite ⇔ some ``‖b_e‖`` is non-finite (NaN propagates through ``max``, and
  ``‖b‖ ≥ 0``); ``m < 0`` ⇔ every element converged;
* converged element (masked solve): ``‖b‖ < atol  or  (‖b‖ < rtol·‖b0‖  and
  ‖du‖ < δ·(‖u‖ + atol))`` with ``δ = substep_del_tol``;
* line-search criterion with ``c = linesearch_stopping_criteria``:
  BACKTRACKING ``‖b‖² − 2cα(b·du)``, STRONG_WOLFE ``(1 − cα)‖b‖²``;
  a trial is accepted when ``‖b_t‖² ≤ crit  or  ‖b_t‖² ≤ atol²``.
"""

from __future__ import annotations

import math

import torch

LINESEARCH_TYPES = ("BACKTRACKING", "STRONG_WOLFE")


def threshold(nb0: torch.Tensor, atol: float, rtol: float) -> torch.Tensor:
    """Per-element convergence threshold ``τ = max(atol, rtol·‖b0‖)``."""
    return torch.clamp(rtol * nb0, min=atol)


def converged(nb: torch.Tensor, tau: torch.Tensor) -> torch.Tensor:
    """Per-element convergence of the throwing solve: ``‖b‖ < τ``."""
    return nb < tau


def status_flags(nb: torch.Tensor, tau: torch.Tensor) -> tuple[bool, bool]:
    """``(all finite, all converged)`` from one reduction and ONE host sync."""
    if nb.numel() == 0:
        return True, True
    m = float((nb - tau).max().item())
    return math.isfinite(m), m < 0.0


def status_flags_predicted(
    nb: torch.Tensor, nb_prev: torch.Tensor, tau: torch.Tensor
) -> tuple[bool, bool, bool]:
    """``(all finite, all converged, next iterate predicted converged)``, ONE host sync.

    The prediction extrapolates quadratic convergence, ``‖b_next‖ ≈ C‖b‖²`` with ``C`` from the
    last step (``‖b‖ = C‖b_prev‖²``): ``‖b‖·(‖b‖/‖b_prev‖)² < τ`` for every element. It only
    selects how the next iterate is evaluated (residual first, Jacobian on demand), never the
    result: a wrong prediction costs one residual evaluation. (The last contraction alone,
    ``‖b‖·(‖b‖/‖b_prev‖)``, misses Newton's final step whenever the one before it still
    contracted slowly, e.g. Chaboche's 11.5 -> 4.8e-2 -> 1e-6 against τ = 9.4e-6.)
    """
    if nb.numel() == 0:
        return True, True, True
    ratio = nb / nb_prev
    pred = nb * ratio * ratio
    m, p = torch.stack(((nb - tau).max(), (pred - tau).max())).tolist()
    return math.isfinite(m), m < 0.0, p < 0.0


def masked_converged(
    nb: torch.Tensor,
    nb0: torch.Tensor,
    ndu: torch.Tensor,
    nu: torch.Tensor,
    atol: float,
    rtol: float,
    del_tol: float,
) -> torch.Tensor:
    """Per-element convergence of the masked solve (relative test gated by the step size)."""
    return (nb < atol) | ((nb < rtol * nb0) & (ndu < del_tol * (nu + atol)))


def convergence_reason(nb: torch.Tensor, nb0: torch.Tensor, atol: float, rtol: float) -> str:
    """Why a converged batch converged: ``abs_tol``, ``rel_tol``, ``both`` or ``mixed``.

    ``both``: every element passes both tests; ``abs_tol``/``rel_tol``: every element
    passes that test (and not all pass the other); ``mixed``: neither test holds for all.
    """
    abs_all, rel_all = torch.stack(((nb < atol).all(), (nb < rtol * nb0).all())).tolist()
    if abs_all and rel_all:
        return "both"
    if abs_all:
        return "abs_tol"
    return "rel_tol" if rel_all else "mixed"


def linesearch_criterion(
    kind: str, nb2: torch.Tensor, bdu: torch.Tensor, alpha: torch.Tensor, c: float
) -> torch.Tensor:
    """Sufficient-decrease threshold for ``‖b_t‖²`` at step length ``α``."""
    if kind == "BACKTRACKING":
        return nb2 - 2.0 * c * alpha * bdu
    if kind == "STRONG_WOLFE":
        return (1.0 - c * alpha) * nb2
    raise ValueError(f"linesearch_type must be one of {LINESEARCH_TYPES}, got {kind!r}")


def linesearch_accept(nbt2: torch.Tensor, crit: torch.Tensor, atol: float) -> torch.Tensor:
    """Per-element acceptance of a trial: ``‖b_t‖² ≤ crit or ‖b_t‖² ≤ atol²``."""
    return (nbt2 <= crit) | (nbt2 <= atol * atol)


def maxiter_message(max_its: int, nb_max: float, nb0_max: float, atol: float, rtol: float) -> str:
    """The iteration-cap failure message (batch maxima; ``%e`` so tiny tolerances show)."""
    return (
        f"Newton failed to converge in {max_its} iterations (max |R| = {nb_max:e}, "
        f"|R0| = {nb0_max:e}, atol = {atol:e}, rtol = {rtol:e})"
    )


def diverged_message(iteration: int, nb0_max: float) -> str:
    """The divergence failure message."""
    return f"Newton diverged at iter {iteration} (non-finite residual; max |R0| = {nb0_max:e})"
