r"""Plan an artifact: the graphs to export (with example inputs) and the metadata describing them.

The plan is device- and dtype-independent except for the example tensors; :func:`plan` builds
the adapters (:mod:`._graphs`) and the segment entry of ``metadata.json`` (ARTIFACT.md §3).
Renames (``--rename-input/-output/-parameter``) touch only the names written to the metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from neml2.aoti.compile._errors import CompileError
from neml2.aoti.compile._graphs import ForwardGraph, ImplicitGraph, PredictorGraph, implicit_layout
from neml2.aoti.compile._prepare import ParamInfo, Prepared
from neml2.models.boundary import VarInfo
from neml2.models.common.substep import given_roles

__all__ = ["Plan", "Renames", "plan"]


@dataclass
class Renames:
    """Boundary renames: old → new for inputs, outputs and parameters."""

    inputs: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)

    def i(self, n: str) -> str:
        """Renamed input."""
        return self.inputs.get(n, n)

    def o(self, n: str) -> str:
        """Renamed output."""
        return self.outputs.get(n, n)

    def p(self, n: str) -> str:
        """Renamed parameter."""
        return self.parameters.get(n, n)


@dataclass
class Plan:
    """Graphs (file name → adapter, example args) and the segment metadata."""

    graphs: list[tuple[str, nn.Module, list[torch.Tensor]]]
    segment: dict[str, Any]
    solver_config: dict[str, Any] | None


def _example(v: VarInfo | Mapping[str, Any], b: int, like: torch.Tensor, gen: Any) -> torch.Tensor:
    if isinstance(v, VarInfo):
        shape = (*v.sub_batch_shape, *v.base_shape)
    else:
        shape = (*v["sub_batch_shape"], *v["base_shape"])
    return torch.rand((b, *shape), generator=gen, dtype=like.dtype).to(like.device) + 0.5


def _param_example(p: ParamInfo, b: int, like: torch.Tensor) -> torch.Tensor:
    v = p.value.to(dtype=like.dtype, device=like.device)
    return v.expand((b, *v.shape)).contiguous()


def _var(v: VarInfo, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "var_type": v.var_type,
        "base_shape": list(v.base_shape),
        "sub_batch_shape": list(v.sub_batch_shape),
        "var_size": v.var_size,
    }


def _fname(name: str, suffix: str) -> str:
    return f"{name}{suffix}.pt2"


def _forward(prep: Prepared, rn: Renames, b: int, like: torch.Tensor, gen: Any) -> Plan:
    xs = [_example(v, b, like, gen) for v in prep.inputs]
    ps = [_param_example(p, b, like) for p in prep.params]
    ex = [*xs, *ps]
    graphs: list[tuple[str, nn.Module, list[torch.Tensor]]] = [
        (_fname(prep.name, ""), ForwardGraph(prep, "value"), ex)
    ]
    shapes = {v.name: list(v.base_shape) for v in (*prep.inputs, *prep.outputs)}
    pshapes = {p.name: list(p.shape) for p in prep.params}
    seg: dict[str, Any] = {
        "kind": "forward",
        "inputs": [rn.i(v.name) for v in prep.inputs],
        "outputs": [rn.o(v.name) for v in prep.outputs],
        "param_inputs": [rn.p(p.name) for p in prep.params],
        "graphs": {"value": graphs[0][0]},
        "jacobian_pairs": [
            {"out": rn.o(o), "in": rn.i(i), "out_base_shape": shapes[o], "in_base_shape": shapes[i]}
            for o, i in prep.pairs
        ],
        "param_jacobian_pairs": [
            {
                "out": rn.o(o),
                "param": rn.p(p),
                "out_base_shape": shapes[o],
                "param_shape": pshapes[p],
            }
            for o, p in prep.param_pairs
        ],
    }
    if prep.pairs:
        graphs.append((_fname(prep.name, "_jvp"), ForwardGraph(prep, "jvp"), ex))
        seg["graphs"]["jvp"] = graphs[-1][0]
    if prep.param_pairs:
        graphs.append((_fname(prep.name, "_pjac"), ForwardGraph(prep, "pjac"), ex))
        seg["graphs"]["pjac"] = graphs[-1][0]
    return Plan(graphs, seg, None)


def _roles(givens: list[VarInfo], unknowns: list[str]) -> list[tuple[str, str | None]]:
    """``(role, pair)`` of each given, in order (the rule py-eager's substepping uses too)."""
    roles = given_roles([g.name for g in givens], unknowns)
    return [roles[g.name] for g in givens]


def _check_incremental(model: Any, givens: list[str]) -> None:
    """Refuse what the runtime would solve differently from py-eager: an incremental variable
    ``X`` whose ``X~1`` the residual does not read is held at ``X`` across substeps by the runtime
    (its segment has no given to interpolate from), where py-eager ramps it from ``X~1``."""
    if not model.max_substepping_level:
        return
    ramped = [x for x in model.incremental_variables if f"{x}~1" not in givens]
    if ramped:
        raise CompileError(
            f"[Models/{model.hit_name}] option 'incremental_variables': {ramped} would be ramped "
            f"from {[x + '~1' for x in ramped]}, which the residual does not read; the compiled "
            "runtime cannot interpolate such a variable across substeps yet (py-eager can). Make "
            "the residual read the old value, or compile without substepping"
        )


def solver_config(model: Any) -> dict[str, Any]:
    """Newton settings of an ImplicitUpdate (ARTIFACT.md §3.2)."""
    s = model.solver
    ls_iters = int(getattr(s, "max_linesearch_iterations", 1))
    lin = getattr(s, "linear_solver", None)
    return {
        "atol": float(s.abs_tol),
        "rtol": float(s.rel_tol),
        "miters": int(s.max_its),
        "substep_del_tol": float(getattr(s, "substep_del_tol", 1e-6)),
        "linesearch": ls_iters > 1,
        "ls_type": str(getattr(s, "linesearch_type", "BACKTRACKING")).upper(),
        "ls_max_iters": ls_iters,
        "ls_cutback": float(getattr(s, "linesearch_cutback", 2.0)),
        "ls_c": float(getattr(s, "linesearch_stopping_criteria", 1e-3)),
        "solver_kind": "direct",
        "linear_solver": type(lin).__name__ if lin is not None else "DenseLU",
    }


def _implicit(prep: Prepared, rn: Renames, b: int, like: torch.Tensor, gen: Any) -> Plan:
    m = prep.model
    unknowns, givens, guesses = implicit_layout(prep)
    n = sum(d["size"] for d in unknowns)
    unames = [d["name"] for d in unknowns]
    u = torch.cat([_example(d, b, like, gen).reshape(b, -1) for d in unknowns], dim=-1)
    gs = [_example(g, b, like, gen) for g in givens]
    ps = [_param_example(p, b, like) for p in prep.params]
    ex = [u, *gs, *ps]
    cfg = solver_config(m)
    gnames = [g.name for g in givens]
    _check_incremental(m, gnames)
    req_in = {i for _, i in prep.pairs}
    gcols: list[dict[str, Any]] = []
    off = 0
    for g in givens:
        if g.name in req_in:
            gcols.append({"name": rn.i(g.name), "offset": off, "size": g.var_size})
            off += g.var_size
    n_g = off
    req_p = {p for _, p in prep.param_pairs}
    pcols: list[dict[str, Any]] = []
    off = 0
    for p in prep.params:
        if p.name in req_p:
            pcols.append({"name": rn.p(p.name), "offset": off, "size": p.size})
            off += p.size
    uinfo = {d["name"]: d for d in unknowns}
    gofs = {c["name"]: c["offset"] for c in gcols}
    pofs = {c["name"]: c["offset"] for c in pcols}
    shapes = {v.name: list(v.base_shape) for v in (*prep.inputs, *prep.outputs)}
    pairs = []
    for o, i in prep.pairs:
        e: dict[str, Any] = {
            "out": rn.o(o), "in": rn.i(i), "out_base_shape": shapes[o], "in_base_shape": shapes[i]
        }  # fmt: skip
        e["row_offset"] = uinfo[o]["offset"]
        if i in gnames:
            e.update(col_offset=gofs[rn.i(i)], zero=False)
        else:
            e.update(col_offset=-1, zero=True)
        pairs.append(e)
    ppairs = [
        {
            "out": rn.o(o),
            "param": rn.p(p),
            "out_base_shape": shapes[o],
            "param_shape": next(list(q.shape) for q in prep.params if q.name == p),
            "row_offset": uinfo[o]["offset"],
            "col_offset": pofs[rn.p(p)],
        }
        for o, p in prep.param_pairs
    ]
    seg: dict[str, Any] = {
        "kind": "implicit",
        "inputs": [rn.i(v.name) for v in prep.inputs],
        "outputs": [rn.o(x) for x in unames],
        "param_inputs": [rn.p(p.name) for p in prep.params],
        "unknowns": [{**d, "name": rn.o(d["name"])} for d in unknowns],
        "n_unknowns": n,
        "givens": [
            {
                **_var(g, rn.i(g.name)),
                "role": role,
                "pair": None
                if pair is None
                else (rn.o(pair) if role == "old_state" else rn.i(pair)),
            }
            for g, (role, pair) in zip(givens, _roles(givens, unames), strict=True)
        ],
        "guesses": [{"input": rn.i(x), "unknown": rn.o(x)} for x in guesses],
        "predictor": None,
        "graphs": {},
        "given_columns": gcols,
        "n_given_columns": n_g,
        "param_columns": pcols,
        "n_param_columns": off,
        "jacobian_pairs": pairs,
        "param_jacobian_pairs": ppairs,
        "max_substepping_level": int(m.max_substepping_level),
        "incremental_variables": [rn.i(x) for x in m.incremental_variables],
    }
    graphs: list[tuple[str, nn.Module, list[torch.Tensor]]] = []

    def add(key: str, adapter: nn.Module, args: list[torch.Tensor]) -> None:
        graphs.append((_fname(prep.name, f"_{key}"), adapter, args))
        seg["graphs"][key] = graphs[-1][0]

    add("jacobian", ImplicitGraph(prep, "jacobian"), ex)
    # line-search trials and the iterate Newton predicts converged need b only (no A)
    add("residual", ImplicitGraph(prep, "residual"), ex)
    if m.predictor is not None:
        pg = PredictorGraph(prep)
        info = {v.name: v for v in prep.inputs}
        add("predictor", pg, [_example(info[k], b, like, gen) for k in m.predictor.input_spec])
        seg["predictor"] = {
            "inputs": [rn.i(k) for k in m.predictor.input_spec],
            "outputs": [rn.o(k) for k in m.predictor.output_spec],
            "identity": False,
        }
    if gcols:
        cols = [g.name for g in givens if g.name in req_in]
        add("jacobian_given", ImplicitGraph(prep, "jacobian_given", given_cols=cols), ex)
    if pcols:
        sel = [p for p in prep.params if p.name in req_p]
        add("dr_dparam", ImplicitGraph(prep, "dr_dparam", param_cols=sel), ex)
    return Plan(graphs, seg, cfg)


def plan(prep: Prepared, renames: Renames, batch: int, like: torch.Tensor) -> Plan:
    """The graphs and segment metadata of ``prep`` traced at example batch ``batch``."""
    gen = torch.Generator().manual_seed(20260101)
    if prep.implicit:
        return _implicit(prep, renames, batch, like, gen)
    return _forward(prep, renames, batch, like, gen)
