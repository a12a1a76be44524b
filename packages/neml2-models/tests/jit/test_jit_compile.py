"""py-jit (``neml2.compile``): results equal py-eager; the three-rates model's shared
``t - t~1`` is computed once in the graph (common-subexpression elimination).

Compiled models are shared per dtype across tests (compiling costs seconds per graph).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from three_rates import THREE_RATES_INPUT

import neml2
from neml2.tensors import Scalar

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parents[2]
CHABOCHE = Path(os.environ["NEML2_SCENARIOS"]) / "chaboche.i"
ELASTICITY = ROOT / "examples" / "elasticity.i"
_CACHE: dict[tuple[str, torch.dtype], tuple[Any, Any]] = {}


def _pair(kind: str, dtype: torch.dtype) -> tuple[Any, Any]:
    """(eager, compiled) copies of the model ``kind``, cached per dtype."""
    key = (kind, dtype)
    if key not in _CACHE:
        if kind == "three_rates":
            eager, jit = (
                neml2.load_string(THREE_RATES_INPUT, dtype=dtype).get_model("eq") for _ in "ab"
            )
        elif kind == "elasticity":
            eager, jit = (neml2.load_model(ELASTICITY, "model", dtype=dtype) for _ in "ab")
        else:
            eager, jit = (
                neml2.load_nonlinear_system(CHABOCHE, "eq_sys", dtype=dtype) for _ in "ab"
            )
        _CACHE[key] = (eager, neml2.compile(jit))
    return _CACHE[key]


def _tols(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol): 1e-12 in float64, float32 round-off otherwise."""
    return (1e-12, 1e-12) if dtype == torch.float64 else (1e-5, 1e-6)


def _inputs(model: Any, batch: tuple[int, ...], dtype: torch.dtype, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    out = {}
    for name, cls in model.input_spec.items():
        base = cls.BASE_SHAPE
        data = rng.uniform(0.5, 1.5, size=(*batch, *base))
        if name == "t":
            data = data + 2.0  # keep t - t~1 away from zero
        out[name] = torch.tensor(data, dtype=dtype)
    return out


def _same(a: dict[str, Any], b: dict[str, Any], dtype: torch.dtype) -> None:
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, dict):
            _same(x, y, dtype)
        else:
            xd = getattr(x, "data", x)
            yd = getattr(y, "data", y)
            rtol, atol = _tols(dtype)
            torch.testing.assert_close(yd, xd, rtol=rtol, atol=atol, msg=f"{k}: mismatch")


@pytest.mark.parametrize("kind", ["three_rates", "elasticity"])
def test_values_and_jacobians_match_eager(kind: str, dtype: torch.dtype) -> None:
    eager, jit = _pair(kind, dtype)
    x = _inputs(eager, (5,), dtype, 0)
    _same(eager.value(x), jit.value(x), dtype)
    _same(eager.jacobian(x)[1], jit.jacobian(x)[1], dtype)
    assert jit.forward is not type(jit).forward.__get__(jit)


def test_chaboche_residual_system_matches_eager(dtype: torch.dtype) -> None:
    eager, jit = _pair("chaboche", dtype)
    x = _inputs(eager.model, (4,), dtype, 1)
    for k in list(x):
        if k.startswith(("X", "stress")) or "plastic" in k:
            x[k] = 1e-2 * x[k]  # a physically small state keeps the residual well scaled
    for sys in (eager, jit):
        sys.initialize({n: x[n] for n in sys.given_names})
    ue = eager.pack_unknowns({n: x[n] for n in eager.unknown_names})
    uj = jit.pack_unknowns({n: x[n] for n in jit.unknown_names})
    be, Ae = eager.residual_and_jacobian(ue)
    bj, Aj = jit.residual_and_jacobian(uj)
    rtol, atol = _tols(dtype)
    torch.testing.assert_close(bj.flat(), be.flat(), rtol=rtol, atol=atol)
    torch.testing.assert_close(Aj.to_dense(), Ae.to_dense(), rtol=rtol, atol=atol)
    assert neml2.jit.compiled_models(jit) == [jit.model]


def test_three_rates_cse_in_optimized_graph(dtype: torch.dtype) -> None:
    _, jit = _pair("three_rates", dtype)
    jit.value(_inputs(jit, (3,), dtype, 2))
    traced = neml2.compiled_graph(jit, optimized=False)
    optimized = neml2.compiled_graph(jit)
    print(optimized)
    assert traced.count("torch.sub(%t, %t~1)") == 3  # one per ScalarVariableRate
    assert optimized.count("aten.sub.Tensor(%t, %t~1)") == 1
    reuse = [ln for ln in optimized.splitlines() if "aten.div.Tensor" in ln]
    assert len(reuse) == 3
    dt = optimized.split(" = aten.sub.Tensor(%t, %t~1)")[0].split()[-3]
    assert all(ln.rstrip(")").endswith(dt) for ln in reuse)


def test_sub_batch(dtype: torch.dtype) -> None:
    eager, jit = _pair("three_rates", dtype)
    x = _inputs(eager, (2, 3), dtype, 3)
    wx = {k: Scalar(v, sub_batch_ndim=1) for k, v in x.items()}
    ye, yj = eager.value(wx), jit.value(wx)
    for k in ye:
        assert yj[k].sub_batch_ndim == 1
    _same(ye, yj, dtype)


def test_idempotent_and_bad_targets(dtype: torch.dtype) -> None:
    _, jit = _pair("three_rates", dtype)
    fwd = jit.forward
    assert neml2.compile(jit) is jit and jit.forward is fwd
    with pytest.raises(TypeError, match="expected a Model"):
        neml2.compile(object())
    with pytest.raises(TypeError, match="'dynamic'"):
        neml2.compile(jit, dynamic=True)
    fresh = neml2.load_string(THREE_RATES_INPUT, dtype=dtype).get_model("eq")
    with pytest.raises(ValueError, match=r"option 'mode'.*bogus"):
        neml2.compile(fresh, mode="bogus")
    assert "forward" not in vars(fresh)
    with pytest.raises(RuntimeError, match="not compiled"):
        neml2.compiled_graph(fresh)
    with pytest.raises(RuntimeError, match="not been called"):
        neml2.compiled_graph(neml2.compile(fresh))


def test_implicit_update_falls_back_to_residual_model(dtype: torch.dtype) -> None:
    factory = neml2.load_input(CHABOCHE, dtype=dtype)
    model = factory.get_model("model")
    neml2.compile(model)
    compiled = neml2.jit.compiled_models(model)
    assert model not in compiled
    assert factory.get_model("implicit_rate") in compiled
    assert "forward" not in vars(model)
