"""ctest ``eager.route_host_<route>``: route_host serves one route's model through
``neml2::aoti::RouteModel &`` only, and every request of the interface answers like py-eager.

    python route_host_check.py cpp-aoti|cpp-dispatch|cpp-eager

Needs ``$NEML2_ROUTE_HOST`` and ``$NEML2_SCENARIOS``; the compiled routes also
``$NEML2_TEST_ARTIFACTS`` (exit 77, ctest SKIP, when it is missing). Scenarios: elasticity (one
forward graph) and scalar_implicit (an implicit Newton segment), at a batch that cpp-dispatch cuts
into chunks of 2 rows.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import torch

import neml2
from neml2.aoti import FatalError
from parity._host import HostRoute

torch.manual_seed(0)
ROUTE = sys.argv[1]
SCENARIOS = Path(os.environ["NEML2_SCENARIOS"])
B = 5


def args(scenario: str) -> list[str]:
    if ROUTE == "cpp-eager":
        return [str(SCENARIOS / f"{scenario}.i"), "model"]
    env = os.environ.get("NEML2_TEST_ARTIFACTS")
    folder = Path(env) / scenario if env else None
    if folder is None or not (folder / "model" / "metadata.json").is_file():
        print(f"SKIPPED: no compiled '{scenario}' under NEML2_TEST_ARTIFACTS ({env})")
        raise SystemExit(77)
    if ROUTE == "cpp-aoti":
        return [str(folder / "model")]
    return [str(folder / "model_aoti.i"), "model", "2"]


def inputs(scenario: str) -> dict[str, torch.Tensor]:
    f64 = torch.float64
    if scenario == "elasticity":
        return {"strain": 1e-3 * torch.randn(B, 6, dtype=f64)}
    return {
        "x": torch.full((B,), 0.5, dtype=f64),
        "x~1": torch.linspace(0.2, 0.6, B, dtype=f64),
        "t": torch.full((B,), 0.1, dtype=f64),
        "t~1": torch.zeros(B, dtype=f64),
    }


def close(a: torch.Tensor, b: torch.Tensor, what: str) -> None:
    if a.shape != b.shape or not torch.allclose(a, b, rtol=1e-8, atol=1e-10):
        raise AssertionError(f"{ROUTE} {what}: {a} != {b}")


def check(scenario: str) -> None:
    ref = neml2.load_model(str(SCENARIOS / f"{scenario}.i"), "model")
    x = inputs(scenario)
    with HostRoute(ROUTE, args(scenario)) as m:
        assert list(m.input_spec) == list(ref.input_spec), (m.input_spec, ref.input_spec)
        assert list(m.output_spec.items()) == list(ref.output_spec.items())
        y, yr = m.value(x), ref.value(x)
        for n in yr:
            assert type(y[n]) is type(yr[n]), (n, type(y[n]), type(yr[n]))
            close(y[n].data, yr[n].data, f"{scenario} forward {n}")
        _, J = m.jacobian(x)
        _, Jr = ref.jacobian(x)
        for o, row in J.items():
            for i, block in row.items():
                close(block, Jr[o][i].data, f"{scenario} J[{o}][{i}]")
        first = next(iter(m.input_spec))
        t = {first: torch.randn_like(x[first])}
        _, dy = m.jvp(x, t)
        _, dyr = ref.jvp(x, t)
        for n in dy:
            close(dy[n].data, dyr[n].data, f"{scenario} jvp {n}")
        params = dict(m.named_parameters())
        assert set(params) == set(m.parameter_base_shapes()), params
        name, value = next(iter(params.items()))
        _, P = m.param_jacobian(x)
        assert any(name in row for row in P.values()), (name, P)
        g = m.param_vjp(x, {n: torch.ones_like(v.data) for n, v in y.items()})
        assert name in g, g
        # param_overrides for one call, then set_parameter: the same values, the old ones kept
        y2 = m.value(x, param_overrides={name: 1.5 * value})
        close(dict(m.named_parameters())[name], value, f"{scenario} parameter after override")
        m.set_parameter(name, 1.5 * value)
        y3 = m.value(x)
        for n in y2:
            close(y2[n].data, y3[n].data, f"{scenario} override vs set_parameter {n}")
        bad_calls: list[Callable[[], object]] = [
            lambda: m.set_parameter("model.no_such_parameter", value),
            lambda: m.value(x, param_overrides={"model.no_such_parameter": value}),
            lambda: m.value({k: v.float() for k, v in x.items()}),  # never cast
        ]
        for bad in bad_calls:
            try:
                bad()
            except FatalError:
                continue
            raise AssertionError(f"{ROUTE} {scenario}: no FatalError")
        m.value(x)  # the host is still serving after errors
    print(f"{ROUTE} {scenario}: ok")


for s in ("elasticity", "scalar_implicit"):
    check(s)
