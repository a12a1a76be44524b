"""NewtonWithLineSearch: per-element step lengths checked against a hand simulation."""

from __future__ import annotations

import math

import pytest
import torch

from neml2.es import AssembledMatrix, AssembledVector, AxisLayout
from neml2.solvers import ConvergenceError, NewtonWithLineSearch

L = AxisLayout.build([[("x", ())]])


class Atan:
    """r(x) = atan(x): Newton overshoots for |x0| > 1.39; records where it is evaluated."""

    def __init__(self) -> None:
        self.jacobian_at: list[torch.Tensor] = []

    def residual(self, u: AssembledVector) -> AssembledVector:
        return AssembledVector(L, [-torch.atan(u.tensors[0])])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        x = u.tensors[0]
        self.jacobian_at.append(x.clone())
        return AssembledMatrix(L, L, [[(1 / (1 + x * x)).unsqueeze(-1)]])


def _expected_alpha(
    x0: float, kind: str, max_ls: int, cutback: float, c: float, atol: float
) -> float:
    """Independent scalar simulation of the first line search from x0."""
    b = -math.atan(x0)
    du = b * (1 + x0 * x0)
    alpha = 1.0
    for k in range(1, max_ls):
        bt2 = math.atan(x0 + alpha * du) ** 2
        if kind == "BACKTRACKING":
            crit = b * b - 2 * c * alpha * (b * du)
        else:
            crit = (1 - c * alpha) * b * b
        if bt2 <= crit or bt2 <= atol * atol:
            break
        if k < max_ls - 1:
            alpha /= cutback
    return alpha


X0 = [0.5, 1.5, 3.0, 10.0, -40.0]


@pytest.mark.parametrize("kind", ["BACKTRACKING", "STRONG_WOLFE"])
@pytest.mark.parametrize(
    ("max_ls", "cutback", "c"), [(10, 2.0, 1e-3), (4, 3.0, 0.5), (3, 2.0, 1e-3)]
)
def test_alpha_per_element(kind: str, max_ls: int, cutback: float, c: float) -> None:
    x0 = torch.tensor(X0, dtype=torch.float64).unsqueeze(-1)
    solver = NewtonWithLineSearch(
        linesearch_type=kind,
        max_linesearch_iterations=max_ls,
        linesearch_cutback=cutback,
        linesearch_stopping_criteria=c,
        max_its=2,
    )
    p = Atan()
    with pytest.raises(ConvergenceError):
        solver.solve(p, AssembledVector(L, [x0]))
    expected = [_expected_alpha(x, kind, max_ls, cutback, c, 1e-10) for x in X0]
    assert solver.last_alpha is not None
    assert solver.last_alpha.squeeze(-1).tolist() == expected
    assert len(set(expected)) >= 2  # the elements really got different step lengths


def test_last_trial_is_kept() -> None:
    """With 2 trials an element that never accepts keeps α = 1/cutback, not 1/cutback²."""
    x0 = torch.tensor([[10.0], [0.5]], dtype=torch.float64)
    solver = NewtonWithLineSearch(max_linesearch_iterations=3, max_its=3)
    p = Atan()
    with pytest.raises(ConvergenceError):
        solver.solve(p, AssembledVector(L, [x0]))
    b = -math.atan(10.0)
    du = b * 101.0
    # the second Jacobian is evaluated at the kept trial point
    assert p.jacobian_at[1][0].item() == 10.0 + 0.5 * du
    assert p.jacobian_at[1][1].item() != 0.5  # the easy element took its full step


def test_line_search_rescues_divergent_newton() -> None:
    x0 = torch.tensor([[3.0], [-10.0], [0.2]], dtype=torch.float64)
    u, res = NewtonWithLineSearch(max_its=50).solve(Atan(), AssembledVector(L, [x0]))
    assert torch.allclose(u.tensors[0], torch.zeros_like(x0), atol=1e-10)
    from neml2.solvers import Newton

    with pytest.raises(ConvergenceError):
        Newton(max_its=50).solve(Atan(), AssembledVector(L, [x0]))
    assert res.iterations > 1


def test_single_trial_is_plain_newton() -> None:
    x0 = torch.tensor([[0.5]], dtype=torch.float64)
    p1, p2 = Atan(), Atan()
    from neml2.solvers import Newton

    u1, r1 = NewtonWithLineSearch(max_linesearch_iterations=1).solve(p1, AssembledVector(L, [x0]))
    u2, r2 = Newton().solve(p2, AssembledVector(L, [x0]))
    assert torch.equal(u1.tensors[0], u2.tensors[0]) and r1.iterations == r2.iterations


def test_atol_acceptance() -> None:
    """A trial with ‖b_t‖ ≤ atol is accepted even when the decrease criterion fails."""
    x0 = torch.tensor([[1e-12]], dtype=torch.float64)  # already tiny; c = 1 makes crit < 0
    solver = NewtonWithLineSearch(
        linesearch_stopping_criteria=1.0, linesearch_type="STRONG_WOLFE", abs_tol=1e-20, max_its=2
    )
    with pytest.raises(ConvergenceError):
        solver.solve(Atan(), AssembledVector(L, [torch.tensor([[2.0]], dtype=torch.float64)]))
    solver = NewtonWithLineSearch(
        linesearch_stopping_criteria=2.0, linesearch_type="STRONG_WOLFE", abs_tol=1e-6, rel_tol=0.0
    )
    _, res = solver.solve(Atan(), AssembledVector(L, [x0 * 1e8]))
    assert solver.last_alpha is not None and solver.last_alpha.item() == 1.0
    assert res.iterations == 1


def test_option_errors() -> None:
    with pytest.raises(
        ValueError, match="linesearch_type must be one of BACKTRACKING, STRONG_WOLFE"
    ):
        NewtonWithLineSearch(linesearch_type="WOLFE")
    with pytest.raises(ValueError, match="got 2"):
        NewtonWithLineSearch(check_negative_criterion=2)
    with pytest.raises(ValueError, match="linesearch_cutback must be > 1"):
        NewtonWithLineSearch(linesearch_cutback=1.0)
    assert NewtonWithLineSearch(check_negative_criterion=1).check_negative_criterion == 1
