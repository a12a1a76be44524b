"""Implicit scenarios: every graph against py-eager's equation system, plus a reference Newton.

Scalar implicit (``dx/dt = a x^3``, ``-p implicit_rate.rate.scaling -d x: -d x:...scaling``) and
Chaboche (``-d stress:strain``). Graph inputs follow ARTIFACT.md §3.2: ``(u, *givens, *params)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

import neml2
from neml2.es import AssembledVector


def _meta(artifact: Callable[[str], Path], name: str) -> dict[str, Any]:
    return dict(json.loads((artifact(name) / "metadata.json").read_text()))


def _scalar_state(batch: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(7 + batch)

    def r(lo: float, hi: float) -> torch.Tensor:
        return (lo + (hi - lo) * torch.rand(batch, generator=g, dtype=torch.float64)).to(dtype)

    return {"x": r(0.5, 1.5), "x~1": r(0.5, 2.0), "t": r(0.6, 1.0), "t~1": r(0.0, 0.4)}


def _chaboche_state(batch: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """One 1 % uniaxial strain increment over dt = 1 from a slightly perturbed state."""
    g = torch.Generator().manual_seed(11 + batch)

    def r(*shape: int, scale: float) -> torch.Tensor:
        return (scale * (torch.rand(batch, *shape, generator=g, dtype=torch.float64) - 0.5)).to(
            dtype
        )

    e = torch.tensor([0.01, -0.005, -0.005, 0, 0, 0], dtype=torch.float64).to(dtype)
    return {
        "strain": e + r(6, scale=1e-3),
        "strain~1": r(6, scale=1e-4),
        "t": torch.ones(batch, dtype=dtype),
        "t~1": torch.zeros(batch, dtype=dtype),
        "equivalent_plastic_strain~1": r(scale=1e-4).abs(),
        "X1~1": r(6, scale=1.0),
        "X2~1": r(6, scale=1.0),
        "stress~1": r(6, scale=10.0),
    }


def _eager(scenario_file: Any, name: str, dtype: torch.dtype, params: dict[str, Any]) -> Any:
    m = neml2.load_model(scenario_file(name), "model", dtype=dtype)
    for k, v in params.items():
        m.set_parameter(k, v)
    return m


def _flat(seg: dict[str, Any], values: dict[str, torch.Tensor], batch: int) -> torch.Tensor:
    return torch.cat([values[d["name"]].reshape(batch, d["size"]) for d in seg["unknowns"]], -1)


def _newton(jac: Any, u: torch.Tensor, rest: list[torch.Tensor], cfg: dict[str, Any]) -> Any:
    """Reference Newton on the compiled ``jacobian`` graph (the C++ runtime does the same).

    float32 cannot reach the float64 tolerances of the scenarios: there the loop also stops
    once the residual is at round-off level (``100 eps`` relative to ``b0``).
    """
    b, A = jac(u, *rest)
    n0 = torch.linalg.vector_norm(b, dim=-1)
    floor = 0.0 if u.dtype == torch.float64 else 100 * torch.finfo(u.dtype).eps
    for _ in range(cfg["miters"]):
        n = torch.linalg.vector_norm(b, dim=-1)
        if bool(((n < cfg["atol"]) | (n < max(cfg["rtol"], floor) * n0)).all()):
            return u, A
        u = u + torch.linalg.solve(A, b)
        b, A = jac(u, *rest)
    raise AssertionError("reference Newton did not converge")


def _system_at(m: Any, state: dict[str, torch.Tensor], u: torch.Tensor) -> tuple[Any, Any]:
    system = m.system
    system.initialize({n: state[n] for n in system.given_names})
    system.set_unknown_sub_batch({})
    return system, AssembledVector.from_flat(system.unknown_layout, u)


@pytest.mark.parametrize("batch", [1, 4])
def test_scalar_implicit_graphs(
    artifact: Any, graph: Any, scenario_file: Any, dtype: torch.dtype, rtol: float, close: Any,
    batch: int,
) -> None:  # fmt: skip
    meta = _meta(artifact, "scalar_implicit")
    (seg,) = meta["segments"]
    assert seg["kind"] == "implicit" and [d["name"] for d in seg["unknowns"]] == ["x"]
    assert [g["name"] for g in seg["givens"]] == ["x~1", "t", "t~1"]
    assert [g["role"] for g in seg["givens"]] == ["old_state", "cur_force", "old_force"]
    assert seg["guesses"] == [{"input": "x", "unknown": "x"}]
    s = _scalar_state(batch, dtype)
    a = torch.full((batch,), -2.0, dtype=dtype) * (1 + 0.1 * torch.arange(batch, dtype=dtype))
    m = _eager(scenario_file, "scalar_implicit", dtype, {"implicit_rate.rate.scaling": a})
    u = s["x"].reshape(batch, 1)
    rest = [s["x~1"], s["t"], s["t~1"], a]
    with torch.no_grad():
        system, uv = _system_at(m, s, u)
        A, Bm, b = system.assemble(uv, need_A=True, need_B=True, givens=["x~1", "t", "t~1"])
    gb, gA = graph("scalar_implicit", "model_jacobian.pt2")(u, *rest)
    close(gb, b.flat(), rtol, "jacobian graph: b = -r")
    close(gA, A.to_dense(), rtol, "jacobian graph: A = dr/du")
    (rb,) = graph("scalar_implicit", "model_residual.pt2")(u, *rest)
    close(rb, b.flat(), rtol, "residual graph: b = -r")
    (gB,) = graph("scalar_implicit", "model_jacobian_given.pt2")(u, *rest)
    close(gB, Bm.to_dense(), rtol, "jacobian_given graph: dr/dg")
    (gP,) = graph("scalar_implicit", "model_dr_dparam.pt2")(u, *rest)
    dt = s["t"] - s["t~1"]
    close(gP, (-dt * s["x"] ** 3).reshape(batch, 1, 1), rtol, "dr_dparam graph (closed form)")
    # round trip: Newton on the graphs = the eager ImplicitUpdate; IFT blocks = eager jacobian
    x, A = _newton(graph("scalar_implicit", "model_jacobian.pt2"), u, rest, meta["solver_config"])
    (gB,) = graph("scalar_implicit", "model_jacobian_given.pt2")(x, *rest)
    X = -torch.linalg.solve(A, gB)
    m64 = _eager(
        scenario_file, "scalar_implicit", torch.float64, {"implicit_rate.rate.scaling": a.double()}
    )
    with torch.no_grad():
        outs, J = m64.jacobian({k: v.double() for k, v in s.items()})
    outs = {k: v.to(dtype) for k, v in outs.items()}
    J = {o: {i: b.to(dtype) for i, b in row.items()} for o, row in J.items()}
    tol = 1e-8 if dtype == torch.float64 else 1e-4
    close(x[:, 0], outs["x"].data, tol, "Newton on the graphs: x")
    for pair in seg["jacobian_pairs"]:
        want = J["x"][pair["in"]].data
        got = torch.zeros_like(want) if pair["zero"] else X[:, 0, pair["col_offset"]]
        close(got, want, tol, f"IFT block dx/d{pair['in']}")


@pytest.mark.parametrize("batch", [1, 3])
def test_chaboche_graphs(
    artifact: Any, graph: Any, scenario_file: Any, dtype: torch.dtype, rtol: float, close: Any,
    batch: int,
) -> None:  # fmt: skip
    meta = _meta(artifact, "chaboche")
    (seg,) = meta["segments"]
    assert meta["derivatives"] == [["stress", "strain"]]
    pred = seg["predictor"]
    assert pred["identity"] and pred["copy_from"] == [f"{o}~1" for o in pred["outputs"]]
    assert set(seg["graphs"]) == {"residual", "jacobian", "jacobian_given"}
    s = _chaboche_state(batch, dtype)
    m = _eager(scenario_file, "chaboche", dtype, {})
    m64 = _eager(scenario_file, "chaboche", torch.float64, {})
    s64 = {k: v.double() for k, v in s.items()}
    gnames = [g["name"] for g in seg["givens"]]
    rest = [s[n] for n in gnames]
    with torch.no_grad():  # the solution (float64 reference for the round trip)
        outs = m64.call_by_name(s64)
    sol = {k: v.data.to(dtype) for k, v in outs.items()}
    # evaluate the operator graphs away from the solution too (a perturbed state)
    pert = _flat(seg, sol, batch) * (
        1 + 1e-3 * torch.linspace(-1, 1, seg["n_unknowns"], dtype=dtype)
    )
    for u in (pert, _flat(seg, {k: s[f"{k}~1"] for k in sol}, batch)):
        with torch.no_grad():
            system, uv = _system_at(m, s, u)
            A, Bm, b = system.assemble(uv, need_A=True, need_B=True, givens=["strain"])
        gb, gA = graph("chaboche", "model_jacobian.pt2")(u, *rest)
        terms = max(float(u.abs().max()), *(float(g.abs().max()) for g in rest))
        close(gb, b.flat(), rtol, "jacobian graph: b = -r", terms)
        close(gA, A.to_dense(), rtol, "jacobian graph: A = dr/du")
        (rb,) = graph("chaboche", "model_residual.pt2")(u, *rest)
        close(rb, b.flat(), rtol, "residual graph: b = -r", terms)
        (gB,) = graph("chaboche", "model_jacobian_given.pt2")(u, *rest)
        close(gB, Bm.to_dense(), rtol, "jacobian_given graph: dr/dstrain")
    # round trip from the (identity) predictor's guess
    u0 = _flat(
        seg, {o: s[c] for o, c in zip(pred["outputs"], pred["copy_from"], strict=True)}, batch
    )
    x, A = _newton(graph("chaboche", "model_jacobian.pt2"), u0, rest, meta["solver_config"])
    tol = max(rtol, 1e-7) if dtype == torch.float64 else 1e-4
    for d in seg["unknowns"]:
        got = x[:, d["offset"] : d["offset"] + d["size"]].reshape(sol[d["name"]].shape)
        close(got, sol[d["name"]], tol, f"Newton on the graphs: {d['name']}")
    (gB,) = graph("chaboche", "model_jacobian_given.pt2")(x, *rest)
    X = -torch.linalg.solve(A, gB)
    with torch.no_grad():
        _, J = m64.jacobian(s64)
    (pair,) = seg["jacobian_pairs"]
    r0, c0 = pair["row_offset"], pair["col_offset"]
    want = J["stress"]["strain"].data.to(dtype)
    close(X[:, r0 : r0 + 6, c0 : c0 + 6], want, tol, "dstress/dstrain")


def test_scenarios_record_independent_rows(artifact: Callable[[str], Path]) -> None:
    """Both implicit scenarios are per-row systems: the runtime may split them into row blocks."""
    for name in ("scalar_implicit", "chaboche"):
        (seg,) = _meta(artifact, name)["segments"]
        assert seg["rows_independent"] is True, name


class _Rowwise(torch.nn.Module):
    def forward(self, *a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        u, g = a
        return u * g.exp(), (u[:, :, None] * u[:, None, :]).sin()


class _BatchMean(torch.nn.Module):
    """A residual that couples the rows (a Taylor-style average over the batch)."""

    def forward(self, *a: torch.Tensor) -> tuple[torch.Tensor]:
        u, g = a
        return (u - g * u.mean(0, keepdim=True),)


class _BatchMax(torch.nn.Module):
    def forward(self, *a: torch.Tensor) -> tuple[torch.Tensor]:
        (u,) = a
        return (u / u.abs().amax(0),)


@pytest.mark.parametrize(
    ("module", "n_args", "want"),
    [(_Rowwise(), 2, True), (_BatchMean(), 2, False), (_BatchMax(), 1, False)],
)
def test_rows_independent_detects_batch_coupling(
    module: torch.nn.Module, n_args: int, want: bool
) -> None:
    from neml2.aoti.compile._lower import export_graph, rows_independent

    g = torch.Generator().manual_seed(3)
    example = [torch.rand(3, 4, generator=g, dtype=torch.float64) + 0.5 for _ in range(n_args)]
    ep, _ = export_graph(module, example, dynamic=True)
    assert rows_independent(ep, example) is want
    # a program that cannot run on more rows (static batch) is never split
    ep_static, _ = export_graph(module, example, dynamic=False)
    assert rows_independent(ep_static, example) is False
