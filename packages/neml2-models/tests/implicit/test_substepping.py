r"""ImplicitUpdate substepping in py-eager (``max_substepping_level``, ``incremental_variables``).

Scenario (the compiled runtime's): ``CUBIC``, :math:`x - x_n + 2\,\Delta t\,x^3 = 0`, from the guess
:math:`x = 1` with :math:`x_n = 1`, :math:`\Delta t = 100`. The masked Newton solve needs more than
eight updates for the full step but fewer for its halves, so with ``max_its = 9`` the step is solved
as two halves; references: the half steps chained by hand through the plain (non-substepping)
model, and numpy's cubic roots (:func:`cubic_root`).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from backward_euler import BE, CUBIC, cubic_root
from narrow import narrow

from neml2.factory import load_string
from neml2.models.common.implicit_update import ImplicitUpdate
from neml2.solvers import ConvergenceError, RetCode
from neml2.tensors import Scalar

F64 = torch.float64
TIGHT = "    abs_tol = 1e-13\n    rel_tol = 1e-14\n"


def _model(hit: str, max_its: int, level: int, extra: str = "") -> ImplicitUpdate:
    hit = hit.replace("type = Newton\n", f"type = Newton\n    max_its = {max_its}\n{TIGHT}")
    hit = hit.replace(
        "    solver = 'newton'\n",
        f"    solver = 'newton'\n    max_substepping_level = {level}\n{extra}",
    )
    return narrow(load_string(hit, dtype=F64).get_model("model"), ImplicitUpdate)


def _t(*v: float, device: torch.device) -> torch.Tensor:
    return torch.tensor(v, dtype=F64, device=device)


def _chain(xn: float, t0: float, t1: float, fractions: list[float]) -> float:
    """numpy: backward-Euler cubic steps over consecutive fractions of [t0, t1]."""
    x = np.array(xn)
    for f in fractions:
        x = cubic_root(x, np.array(f * (t1 - t0)))
    return float(x)


def test_substepped_step_matches_chained_half_steps(device: torch.device) -> None:
    # row 0 needs one halving (t~1 = 0.2 -> t = 100.2: times interpolated to 50.2); row 1 is easy
    sub = _model(CUBIC, max_its=9, level=1)
    x = {"x": _t(1.0, 1.0, device=device), "x~1": _t(1.0, 0.5, device=device),
         "t": _t(100.2, 0.3, device=device), "t~1": _t(0.2, 0.0, device=device)}  # fmt: skip
    with torch.no_grad():
        got = sub.value(x)["x"].data
    assert sub.last_result.max_level == 1 and sub.last_result.solves == 3
    plain = _model(CUBIC, max_its=25, level=0)
    one = _t(1.0, device=device)
    with torch.no_grad():
        h = plain.value({"x": one, "x~1": one, "t": 50.2 * one, "t~1": 0.2 * one})["x"].data
        e = plain.value({"x": h, "x~1": h, "t": 100.2 * one, "t~1": 50.2 * one})["x"].data
    torch.testing.assert_close(got[:1], e, rtol=1e-12, atol=0)
    assert got[0].item() == pytest.approx(_chain(1.0, 0.2, 100.2, [0.5, 0.5]), rel=1e-12)
    # not the full-step root (a halving changes the time integration)
    assert abs(got[0].item() - _chain(1.0, 0.2, 100.2, [1.0])) > 1e-2
    # row 1 converged at level 0: untouched, exactly its solve alone, and the plain solve
    alone = _model(CUBIC, max_its=9, level=1)
    with torch.no_grad():
        r1 = alone.value({n: v[1:] for n, v in x.items()})["x"].data
        p1 = plain.value({n: v[1:] for n, v in x.items()})["x"].data
    assert alone.last_result.max_level == 0
    assert torch.equal(got[1:], r1)
    torch.testing.assert_close(got[1:], p1, rtol=1e-12, atol=0)
    assert got[1].item() == pytest.approx(_chain(0.5, 0.0, 0.3, [1.0]), rel=1e-12)


def test_deeper_halvings_chain_unequal_spans(device: torch.device) -> None:
    """max_its = 8: [0,1] and [0,1/2] and [0,1/4] fail; the step is solved as the spans
    1/8, 1/8, 1/4, 1/2 (the second half of a span starts from its first half's solution)."""
    sub = _model(CUBIC, max_its=8, level=3)
    one = _t(1.0, device=device)
    with torch.no_grad():
        got = sub.value({"x": one, "x~1": one, "t": 100 * one, "t~1": 0 * one})["x"].data
    assert (sub.last_result.max_level, sub.last_result.solves) == (3, 7)
    want = _chain(1.0, 0.0, 100.0, [0.125, 0.125, 0.25, 0.5])
    assert got.item() == pytest.approx(want, rel=1e-12)
    assert abs(want - _chain(1.0, 0.0, 100.0, [0.5, 0.5])) > 1e-6  # the schedule matters


def test_exhausted_substepping_is_recoverable(device: torch.device) -> None:
    sub = _model(CUBIC, max_its=3, level=1)
    one = _t(1.0, 1.0, device=device)
    x = {"x": one, "x~1": one, "t": _t(100.0, 0.0, device=device), "t~1": 0 * one}
    with pytest.raises(ConvergenceError, match=r"ImplicitUpdate 'model'.*substepping exhausted: "
                       r"1 element\(s\) did not converge after 1 step halvings "
                       r"\(max_substepping_level = 1\)") as info, torch.no_grad():  # fmt: skip
        sub.value(x)
    assert info.value.ret == RetCode.MAXITER
    # without substepping the same step fails in Newton itself
    with pytest.raises(ConvergenceError, match="failed to converge in 3"), torch.no_grad():
        _model(CUBIC, max_its=3, level=0).value(x)


def test_batch_shapes_and_rows(device: torch.device) -> None:
    """A (2, 2) batch with a shared t: outputs carry the broadcast batch; every row equals its
    own substepped solve."""
    sub = _model(CUBIC, max_its=9, level=4)
    xn = torch.tensor([[1.0, 0.9], [1.2, 0.8]], dtype=F64, device=device)
    x = {"x": _t(1.0, device=device), "x~1": xn, "t": _t(100.0, device=device)[0],
         "t~1": torch.tensor([[0.0], [40.0]], dtype=F64, device=device)}  # fmt: skip
    with torch.no_grad():
        got = sub.value(x)["x"].data
    assert got.shape == (2, 2) and sub.last_result.max_level > 0
    for i in range(2):
        for j in range(2):
            row = {"x": x["x"], "x~1": xn[i, j], "t": x["t"], "t~1": x["t~1"][i, 0]}
            with torch.no_grad():
                assert torch.equal(sub.value(row)["x"].data.reshape(()), got[i, j])


def test_incremental_variable_is_interpolated(device: torch.device) -> None:
    """x_rate = -2 k x^3 with k in incremental_variables: k(tau) = k~1 + tau (k - k~1)."""
    hit = CUBIC.replace("from = 'x x2 x3'", "from = 'x x2 x3 k'")
    sub = _model(hit, max_its=9, level=1, extra="    incremental_variables = 'k'\n")
    assert "k~1" in sub.input_spec
    one = _t(1.0, device=device)
    x = {"x": one, "x~1": one, "t": 50 * one, "t~1": 0 * one, "k": 2 * one, "k~1": 0 * one}
    with torch.no_grad():
        got = sub.value(x)["x"].data
    assert sub.last_result.max_level == 1
    # halves: k = 1 on [0, 25], k = 2 on [25, 50]
    h = cubic_root(np.array(1.0), np.array(25.0 * 1.0))
    want = float(cubic_root(h, np.array(25.0 * 2.0)))
    assert got.item() == pytest.approx(want, rel=1e-12)
    # held at its current value instead, the result differs
    held = float(cubic_root(cubic_root(np.array(1.0), np.array(50.0)), np.array(50.0)))
    assert abs(held - want) > 1e-6


def test_reverse_mode_through_halvings(device: torch.device) -> None:
    """Autograd through a substepped step: the chained IFT of the two half steps, against the
    closed form (dx/dx_n = 1/(1 + 6 h x^2) per half step h) and central differences."""
    sub = _model(CUBIC, max_its=9, level=1)
    base = {"x": _t(1.0, device=device), "x~1": _t(1.0, device=device),
            "t": _t(100.0, device=device), "t~1": _t(0.0, device=device)}  # fmt: skip
    leaves = {n: v.clone().requires_grad_(True) for n, v in base.items()}
    out = sub.value(leaves)["x"].data
    assert sub.last_result.max_level == 1
    scaling = dict(sub.named_parameters())["implicit_rate.rate.scaling"]
    names = ["x~1", "t", "t~1"]
    grads = torch.autograd.grad(out.sum(), [*(leaves[n] for n in names), scaling])
    xe = out.detach()
    xh = torch.tensor(cubic_root(np.array(1.0), np.array(50.0)), dtype=F64, device=device)
    closed = 1.0 / ((1 + 6 * 50 * xe**2) * (1 + 6 * 50 * xh**2))
    torch.testing.assert_close(grads[0], closed, rtol=1e-10, atol=0)

    def value(**kw: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            v: torch.Tensor = sub.value({**base, **kw})["x"].data
        assert sub.last_result.max_level == 1  # the same schedule
        return v

    for g, n in zip(grads[:3], names, strict=True):
        eps = 1e-6 * max(1.0, abs(base[n].item()))
        fd = (value(**{n: base[n] + eps}) - value(**{n: base[n] - eps})) / (2 * eps)
        torch.testing.assert_close(g, fd, rtol=1e-6, atol=1e-12)
    with torch.no_grad():
        scaling.add_(1e-6)
        hi = value()
        scaling.sub_(2e-6)
        lo = value()
        scaling.add_(1e-6)
    torch.testing.assert_close(grads[3], (hi - lo).sum() / 2e-6, rtol=1e-6, atol=0)
    # the guess gets no gradient
    g = base["x"].clone().requires_grad_(True)
    out = sub.value({**base, "x": g})["x"].data
    assert not out.requires_grad or torch.autograd.grad(out.sum(), g, allow_unused=True)[0] is None


def test_forward_jacobian_as_compiled(device: torch.device) -> None:
    """Forward tangents: the IFT at the converged point when no halving was needed (equal to
    autograd), refused when one was (as the compiled runtime)."""
    sub = _model(BE, max_its=9, level=2)
    x = {"x": _t(0.0, 0.0, device=device), "x~1": _t(1.0, 2.0, device=device),
         "t": _t(0.5, device=device), "t~1": _t(0.0, 0.1, device=device)}  # fmt: skip
    _, J = sub.jacobian(x)
    assert sub.last_result.max_level == 0
    leaves = {n: v.clone().requires_grad_(True) for n, v in x.items()}
    out = sub.value(leaves)["x"].data
    (g,) = torch.autograd.grad(out.sum(), leaves["x~1"])
    torch.testing.assert_close(J["x"]["x~1"].data, g, rtol=1e-12, atol=0)
    torch.testing.assert_close(J["x"]["x~1"].data, 1 / (1 + 1.5 * (0.5 - x["t~1"])),
                               rtol=1e-12, atol=0)  # fmt: skip
    hard = _model(CUBIC, max_its=9, level=1)
    one = _t(1.0, device=device)
    with pytest.raises(RuntimeError, match="derivatives through a substepped implicit solve"):
        hard.jacobian({"x": one, "x~1": one, "t": 100 * one, "t~1": 0 * one})


@pytest.mark.parametrize("structure", ["dense", "block"])
def test_sub_batched_unknown(structure: str, device: torch.device) -> None:
    """Per-site unknowns (sub-batch (3,)): a batch element, all its sites, is halved together."""
    hit = CUBIC.replace("unknowns = 'x'", f"unknowns = 'x'\n    structure = '{structure}'")
    sub = _model(hit, max_its=9, level=1)
    xn = torch.tensor([[1.0, 0.9, 1.1], [1.0, 0.5, 2.0]], dtype=F64, device=device)
    x = {"x": Scalar(torch.ones((), dtype=F64, device=device)),  # unbatched guess: expanded
         "x~1": Scalar(xn, sub_batch_ndim=1), "t": Scalar(_t(100.0, 0.5, device=device)),
         "t~1": Scalar(_t(0.0, 0.1, device=device))}  # fmt: skip
    with torch.no_grad():
        (got,) = sub(*sub.wrap_inputs(x))
    assert got.sub_batch_shape == (3,) and sub.last_result.max_level == 1
    want = [[_chain(v, 0.0, 100.0, [0.5, 0.5]) for v in xn[0].tolist()],
            [_chain(v, 0.1, 0.5, [1.0]) for v in xn[1].tolist()]]  # fmt: skip
    torch.testing.assert_close(got.data, torch.tensor(want, dtype=F64, device=device), rtol=1e-12,
                               atol=0)  # fmt: skip
