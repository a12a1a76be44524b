"""The pure Newton rule functions, in isolation."""

from __future__ import annotations

import pytest
import torch

from neml2.solvers import _rules as rules, is_truthy


def T(x: list[float]) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


def test_converged_abs_or_rel_per_element() -> None:
    nb0 = T([1e-3, 1e6, 1.0, 1.0])
    nb = T([5e-11, 1e-3, 1e-8, 2e-8])
    tau = rules.threshold(nb0, 1e-10, 1e-8)
    # abs only, rel only, rel boundary (strict), neither
    assert rules.converged(nb, tau).tolist() == [True, True, False, False]
    # the division-free form agrees with the textbook one
    textbook = (nb < 1e-10) | (nb / nb0 < 1e-8)
    assert torch.equal(rules.converged(nb, tau), textbook)


def test_status_flags_all_reduce() -> None:
    tau = rules.threshold(T([1.0, 1.0]), 1e-10, 1e-8)
    assert rules.status_flags(T([1e-12, 1e-12]), tau) == (True, True)
    assert rules.status_flags(T([1e-12, 1.0]), tau) == (True, False)
    assert rules.status_flags(T([1e-12, float("nan")]), tau) == (False, False)
    assert rules.status_flags(T([float("inf"), 0.0]), tau)[0] is False
    assert rules.status_flags(T([]), T([])) == (True, True)
    # a non-finite initial residual is caught at the guess
    tau_bad = rules.threshold(T([float("inf")]), 1e-10, 1e-8)
    assert rules.status_flags(T([float("inf")]), tau_bad)[0] is False


def test_prediction_extrapolates_quadratic_convergence() -> None:
    """Next norm ~ ‖b‖³/‖b_prev‖² (hand values): Chaboche's 11.5 -> 4.78e-2 predicts 8.3e-7,
    under τ = 9.4e-6 (the last contraction alone, 4.78e-2²/11.5 = 2e-4, would not); every
    element must be predicted; the flags of the current iterate are unaffected."""
    tau = T([9.4e-6, 9.4e-6])
    finite, conv, likely = rules.status_flags_predicted(T([4.78e-2, 1e-3]), T([11.5, 1.0]), tau)
    assert (finite, conv, likely) == (True, False, True)  # 8.3e-7 and 1e-9
    slow = rules.status_flags_predicted(T([4.78e-2, 0.25]), T([11.5, 1.0]), tau)
    assert slow == (True, False, False)  # 0.25 * 0.25**2 = 1.6e-2 is not under τ
    assert rules.status_flags_predicted(T([1e-6, 1e-7]), T([1e-2, 1e-3]), tau)[:2] == (True, True)
    assert not rules.status_flags_predicted(T([float("nan"), 1.0]), T([1.0, 2.0]), tau)[0]


def test_zero_initial_residual_counts_as_absolute() -> None:
    assert rules.converged(T([0.0]), rules.threshold(T([0.0]), 1e-10, 1e-8)).tolist() == [True]
    assert rules.converged(T([0.0]), rules.threshold(T([0.0]), 0.0, 1e-8)).tolist() == [False]


def test_masked_converged_needs_small_step_for_rel() -> None:
    nb0 = T([1.0, 1.0, 1.0])
    nb = T([1e-9, 1e-9, 1e-11])
    ndu = T([1e-7, 1e-3, 1.0])
    nu = T([1.0, 1.0, 1.0])
    got = rules.masked_converged(nb, nb0, ndu, nu, 1e-10, 1e-8, 1e-6)
    assert got.tolist() == [True, False, True]


@pytest.mark.parametrize(
    ("nb", "nb0", "reason"),
    [
        ([1e-12, 1e-12], [1.0, 1.0], "both"),
        ([1e-11, 1e-11], [1e-4, 1e-4], "abs_tol"),
        ([1e-4, 1e-4], [1e6, 1e6], "rel_tol"),
        ([1e-11, 1e-4], [1e-4, 1e6], "mixed"),
    ],
)
def test_convergence_reason(nb: list[float], nb0: list[float], reason: str) -> None:
    assert rules.convergence_reason(T(nb), T(nb0), 1e-10, 1e-8) == reason


def test_linesearch_criteria() -> None:
    nb2, bdu, alpha = T([4.0]), T([3.0]), T([0.5])
    assert rules.linesearch_criterion("BACKTRACKING", nb2, bdu, alpha, 0.1).item() == pytest.approx(
        4.0 - 2 * 0.1 * 0.5 * 3.0
    )
    assert rules.linesearch_criterion("STRONG_WOLFE", nb2, bdu, alpha, 0.1).item() == pytest.approx(
        (1 - 0.1 * 0.5) * 4.0
    )
    with pytest.raises(ValueError, match="linesearch_type must be one of"):
        rules.linesearch_criterion("EXACT", nb2, bdu, alpha, 0.1)
    acc = rules.linesearch_accept(T([3.0, 5.0, 1e-21]), T([4.0, 4.0, -1.0]), 1e-10)
    assert acc.tolist() == [True, False, True]


def test_messages_use_exponent_format() -> None:
    msg = rules.maxiter_message(25, 3.5e-3, 2.0, 1e-10, 1e-8)
    assert msg == (
        "Newton failed to converge in 25 iterations (max |R| = 3.500000e-03, "
        "|R0| = 2.000000e+00, atol = 1.000000e-10, rtol = 1.000000e-08)"
    )
    assert rules.diverged_message(3, 1.0).startswith(
        "Newton diverged at iter 3 (non-finite residual"
    )


@pytest.mark.parametrize(
    ("value", "truthy"),
    [
        (None, False), ("", False), ("0", False), ("false", False), (" FALSE ", False),
        ("no", False), ("Off", False), ("  ", False), ("1", True), ("yes", True),
        ("true", True), ("on", True), ("anything", True), (" 2 ", True),
    ],
)  # fmt: skip
def test_truthy_parser(value: str | None, truthy: bool) -> None:
    assert is_truthy(value) is truthy
