"""Deferred tangent sums (:mod:`neml2.models._deferred`): same values as evaluating every sum,
never seen by a model that did not opt in, never while tracing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import pytest
import torch

import neml2
import neml2.es.nonlinear_system as nonlinear_system
import neml2.models.chain_rule as chain_rule
from neml2.models._deferred import (
    DeferredTangent,
    call_deferring,
    deferring_allowed,
    linear_map,
    materialize,
    scaled_by,
)
from neml2.models.chain_rule import (
    ProductTerm,
    accumulate,
    apply_chain_rule,
    deferred_sum,
    product_term,
)
from neml2.models.model import Model
from neml2.tensors import SR2, Scalar, tr
from neml2.tensors._wrapper import BROADCAST, FULL

B, K = 5, 4
REPO = Path(__file__).resolve().parents[4]


def _rand(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _tangent(data: torch.Tensor, cls: Any = SR2) -> Any:
    state = FULL if data.shape[0] > 1 else BROADCAST
    return cls._wrap(data, 0, (), (), 1, (state,), (None,))


def _parts() -> list[Any]:
    """``c t + u + s x``: a Scalar coefficient times an SR2 tangent, a plain SR2 tangent and a
    Scalar tangent times an SR2 coefficient."""
    return [
        product_term(Scalar(_rand(B, seed=1)), _tangent(_rand(K, B, 6, seed=2))),
        _tangent(_rand(K, B, 6, seed=3)),
        product_term(_tangent(_rand(K, B, seed=4), Scalar), SR2(_rand(B, 6, seed=5))),
    ]


def _value(parts: list[Any]) -> torch.Tensor:
    out: torch.Tensor = accumulate(parts).data  # outside call_deferring: evaluated at once
    return out


def test_a_scaling_distributes_over_the_parts() -> None:
    parts = _parts()
    d = deferred_sum(parts)
    c = Scalar(_rand(B, seed=6))
    got = d.apply(scaled_by(c))
    assert len(got) == 3 and all(isinstance(p, ProductTerm) for p in got)
    assert d._value is None  # the sum itself was never formed
    want = c.data[:, None] * _value(parts)
    torch.testing.assert_close(_value(list(got)), want, rtol=1e-13, atol=1e-13)


def test_the_scale_goes_to_the_factor_it_enlarges_least() -> None:
    seed = _tangent(_rand(K, 1, 6, seed=7))  # broadcast over the batch
    coef, ndt = Scalar(_rand(B, seed=8)), Scalar(_rand(B, seed=9))
    (term,) = deferred_sum([product_term(coef, seed)]).apply(scaled_by(ndt))
    assert term.b is seed  # scaling the seed would write a (K, B, 6) tensor
    torch.testing.assert_close(term.a.data, coef.data * ndt.data, rtol=0, atol=0)


def test_a_constant_multiple_folds_through_any_linear_action() -> None:
    t = _tangent(_rand(K, B, 6, seed=10))
    x = SR2(_rand(B, 6, seed=11))
    d = deferred_sum([product_term(-2.5, t)])
    assert d.constant_multiple is not None

    def action(u: Any) -> Any:  # linear in u, not a scaling: tr(u) x + u
        return (product_term(tr(u), x), u)

    got = d.apply(action)
    assert d._value is None
    want = accumulate(list(action(d.value())))
    torch.testing.assert_close(_value(list(got)), want.data, rtol=1e-13, atol=1e-13)


def test_a_linear_map_maps_each_part() -> None:
    parts = _parts()
    d = deferred_sum(parts)
    C = _rand(6, 6, seed=15)
    calls: list[tuple[int, ...]] = []

    def apply_c(u: Any) -> Any:
        calls.append(tuple(u.data.shape))
        return u._like(u.data @ C)

    got = d.apply(linear_map(SR2, apply_c))
    assert d._value is None  # L(sum) = sum of a_i L(b_i): the sum is never written out
    assert sorted(calls) == sorted([(K, B, 6), (K, B, 6), (B, 6)])
    torch.testing.assert_close(_value(list(got)), _value(parts) @ C, rtol=1e-13, atol=1e-13)
    # once the sum exists (another consumer needed it), L maps it in one call
    d.value()
    calls.clear()
    d.apply(linear_map(SR2, apply_c))
    assert calls == [(K, B, 6)]


def test_other_actions_get_the_sum_evaluated_once() -> None:
    parts = _parts()
    d = deferred_sum(parts)
    seen: list[Any] = []

    def record(u: Any) -> Any:
        seen.append(u)
        return u

    d.apply(record)
    d.apply(record)
    assert seen[0] is seen[1] is d.value()
    torch.testing.assert_close(seen[0].data, _value(parts), rtol=0, atol=0)
    # a scaling of a sum that exists already is one product with it, not one per part
    term = d.apply(scaled_by(3.0))
    assert isinstance(term, ProductTerm) and term.a == 3.0 and term.b is d.value()


@pytest.fixture
def always_defer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defer tangents of any size (the small ones of these tests are below the threshold)."""
    monkeypatch.setattr(chain_rule, "DEFER_MIN_ELEMENTS", 0)


def test_small_tangents_are_summed_at_once() -> None:
    parts = _parts()
    assert chain_rule._largest(parts) < chain_rule.DEFER_MIN_ELEMENTS
    assert not isinstance(call_deferring(accumulate, parts), DeferredTangent)
    big = [product_term(2.0, _tangent(torch.zeros(chain_rule.DEFER_MIN_ELEMENTS // 6 + 1, 1, 6)))]
    assert isinstance(call_deferring(accumulate, big), DeferredTangent)


def test_accumulate_defers_only_when_allowed(always_defer: None) -> None:
    parts = _parts()
    assert not isinstance(accumulate(parts), DeferredTangent)
    got = call_deferring(accumulate, parts)
    assert isinstance(got, DeferredTangent)
    lone = _tangent(_rand(K, B, 6, seed=12))
    assert call_deferring(accumulate, [lone]) is lone
    assert call_deferring(accumulate, [product_term(1.0, lone)]) is lone
    tree = {"y": {"leaf": got, "other": lone}}
    out = materialize(tree)
    assert out["y"]["other"] is lone
    torch.testing.assert_close(out["y"]["leaf"].data, _value(parts), rtol=0, atol=0)
    plain = {"y": {"leaf": lone}}
    assert materialize(plain) is plain


class _Reader(Model):
    """Reads its incoming tangent's storage directly (does not opt in)."""

    input_spec: ClassVar[dict[str, Any]] = {"x": SR2}  # type: ignore[misc]
    output_spec: ClassVar[dict[str, Any]] = {"y": SR2}  # type: ignore[misc]
    seen: ClassVar[list[Any]] = []

    def forward(self, x: Any, v: Any = None) -> Any:
        if v is None:
            return x
        t = v["x"]["leaf"]
        type(self).seen.append(t)
        return x, {"y": {"leaf": t._like(2.0 * t.data)}}


class _Passer(_Reader):
    """Hands its tangents to the chain rule only (opts in)."""

    ACCEPTS_DEFERRED_TANGENTS = True

    def forward(self, x: Any, v: Any = None) -> Any:
        if v is None:
            return x
        type(self).seen.append(v["x"]["leaf"])
        return x, *self.propagate_tangents(v, "y", {"x": scaled_by(2.0)}, output=x)


@pytest.mark.parametrize("cls", [_Reader, _Passer])
def test_models_see_deferred_tangents_only_when_they_opt_in(cls: Any, always_defer: None) -> None:
    parts = _parts()
    d = deferred_sum(parts)
    m = cls()
    m._var_renames = {}
    cls.seen.clear()
    x = SR2(_rand(B, 6, seed=13))
    _, v_out = call_deferring(m, x, v={"x": {"leaf": d}})
    (got,) = cls.seen
    if cls is _Reader:
        assert got is d.value()
    else:
        assert got is d and d._value is None
    torch.testing.assert_close(
        materialize(v_out)["y"]["leaf"].data, 2.0 * _value(parts), rtol=1e-13, atol=1e-13
    )


def test_models_that_post_process_their_tangents_get_them_evaluated(always_defer: None) -> None:
    """A subclass that maps what its parent's chain rule returns (an eigenstrain promotes the
    scalar map's tangents to SR2) must not receive deferred sums from it."""
    factory = neml2.load_string(
        "[Models]\n[eig]\ntype = ThermalEigenstrain\nreference_temperature = 300\n"
        "CTE = 1e-5\n[]\n[]\n"
    )
    model = factory.get_model("eig")
    T = Scalar(300 + _rand(B, seed=17))
    seed = _tangent(_rand(K, B, seed=18), Scalar)
    plain = model(T, v={"temperature": {"leaf": seed}})[-1]
    deferred = call_deferring(model, T, v={"temperature": {"leaf": deferred_sum([seed])}})[-1]
    got = deferred["eigenstrain"]["leaf"]
    assert isinstance(got, SR2)
    torch.testing.assert_close(got.data, plain["eigenstrain"]["leaf"].data, rtol=0, atol=0)


def test_apply_chain_rule_folds_deferred_inputs() -> None:
    parts = _parts()
    v = {"x": {"leaf": deferred_sum(parts)}}
    got = apply_chain_rule(v, "y", {"x": lambda d: d._like(d.data.flip(-1))})["y"]["leaf"]
    torch.testing.assert_close(got.data, _value(parts).flip(-1), rtol=0, atol=0)


def _recording(fn: Any, calls: list[Any]) -> Any:
    def wrapped(*args: Any) -> Any:
        calls.append(args)
        return fn(*args)

    return wrapped


def test_no_deferral_while_compiling() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = call_deferring(lambda y: y * (2.0 if deferring_allowed() else 3.0), x)
        return out

    assert float(f(torch.ones(()))) == 2.0
    compiled = torch.compile(f, fullgraph=True, backend="eager")
    assert float(compiled(torch.ones(()))) == 3.0


def test_chaboche_newton_jacobian_is_unchanged_by_deferral(
    monkeypatch: pytest.MonkeyPatch, always_defer: None
) -> None:
    """The benchmark's Chaboche update (second-order Normality, linear combinations, backward
    Euler): value and exact Jacobian with deferral agree with plain evaluation to rounding."""
    model = neml2.load_model(Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i", "model")
    g = torch.Generator().manual_seed(14)
    n = 6

    def rand(*shape: int, scale: float) -> torch.Tensor:
        return scale * torch.randn((n, *shape), generator=g, dtype=torch.float64)

    inputs = {  # a plastic step from a hardened state: every branch of the model active
        "strain": rand(6, scale=0.02),
        "strain~1": rand(6, scale=0.005),
        "t": torch.full((n,), 2.0, dtype=torch.float64),
        "t~1": torch.ones(n, dtype=torch.float64),
        "equivalent_plastic_strain~1": rand(scale=0.01).abs(),
        "X1~1": rand(6, scale=5.0),
        "X2~1": rand(6, scale=5.0),
        "stress~1": rand(6, scale=50.0),
    }
    deferred: list[Any] = []
    monkeypatch.setattr(chain_rule, "deferred_sum", _recording(chain_rule.deferred_sum, deferred))
    out_d, jac_d = model.jacobian(inputs)
    assert len(deferred) > 10  # the deferral did happen
    monkeypatch.setattr(nonlinear_system, "call_deferring", lambda fn, *a, **kw: fn(*a, **kw))
    out_p, jac_p = model.jacobian(inputs)
    for name in out_p:
        torch.testing.assert_close(out_d[name].data, out_p[name].data, rtol=1e-12, atol=1e-12)
        for wrt in jac_p[name]:
            # the implicit function theorem solves with the Newton matrix, whose condition
            # number (elastic modulus 1e5 against the flow terms) amplifies reassociation
            # rounding of a few ulp by up to ~1e6
            want = jac_p[name][wrt].data
            tol = 1e-9 * max(1.0, float(want.abs().max()))
            torch.testing.assert_close(jac_d[name][wrt].data, want, rtol=1e-9, atol=tol)
