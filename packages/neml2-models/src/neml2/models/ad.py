r"""Autograd fallbacks: ``request_AD`` pushforward and parameter derivatives.

``request_AD``: with ``v`` given, the model's value forward is re-run on detached, grad-enabled
copies of the requested inputs; dense local blocks :math:`\partial y/\partial x`
``(*B, *out_base, *in_base)`` are built with one ``autograd.grad`` per output component and
contracted with the incoming tangents (first order, plain batch).

``param_jacobian``: per-batch blocks :math:`\partial y/\partial p` via ``functional_call`` with a
parameter copy expanded over the batch; ``param_vjp``: reverse mode, batch summed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.func import functional_call

from neml2._guard import allow_autograd
from neml2.models._derivatives import split_result
from neml2.models._typed import broadcast
from neml2.models.chain_rule import accumulate, apply_chain_rule
from neml2.tensors import flatten_from

__all__ = ["ad_pushforward", "local_jacobians", "param_jacobian", "param_vjp", "request_AD"]


def request_AD(model: Any, outputs: Sequence[str] | None, inputs: Sequence[str] | None) -> None:
    """Mark ``inputs`` (default: every structural input) for autograd derivatives.

    Derivatives of every output w.r.t. the marked inputs come from autograd; ``forward`` only
    needs to push tangents of unmarked inputs. Promoted parameters cannot be marked.
    """
    promoted = {p.input_name for p in model._nl_params.values()}
    names = (
        list(inputs) if inputs is not None else [n for n in model.input_spec if n not in promoted]
    )
    for n in names:
        if n in promoted:
            raise ValueError(f"request_AD: '{n}' is a promoted parameter, not a structural input")
        if n not in model.input_spec:
            raise KeyError(f"request_AD: '{n}' is not an input of {type(model).__name__}")
    outs = list(outputs) if outputs is not None else list(model.output_spec)
    for o in outs:
        if o not in model.output_spec:
            raise KeyError(f"request_AD: '{o}' is not an output of {type(model).__name__}")
    model._ad_inputs = tuple(dict.fromkeys([*model._ad_inputs, *names]))
    model._ad_outputs = tuple(dict.fromkeys([*model._ad_outputs, *outs]))


def local_jacobians(
    model: Any, args: Sequence[Any], wrt: Sequence[str]
) -> dict[str, dict[str, torch.Tensor]]:
    """Dense blocks ``{out: {in: (*B, n_out, n_in)}}`` by autograd (unused pairs absent)."""
    names = list(model.input_spec)
    pos = {n: i for i, n in enumerate(names)}
    with allow_autograd("request_AD local Jacobians"), torch.enable_grad():
        xs = list(args)
        leaves = []
        for n in wrt:
            x = args[pos[n]]
            d = x.data.detach().requires_grad_(True)
            xs[pos[n]] = type(x)._wrap(d, x.sub_batch_ndim)
            leaves.append(d)
        outs, _ = split_result(model, model.forward(*xs), 0)
        blocks: dict[str, dict[str, torch.Tensor]] = {}
        for oname, y in outs.items():
            if not y.data.requires_grad:
                continue
            nb = y.data.dim() - y.BASE_NDIM
            flat = flatten_from(y.data, nb)
            rows: list[list[torch.Tensor | None]] = []
            for c in range(flat.shape[-1]):
                g = torch.autograd.grad(
                    flat[..., c],
                    leaves,
                    torch.ones_like(flat[..., c]),
                    retain_graph=True,
                    allow_unused=True,
                )
                rows.append(list(g))
            row: dict[str, torch.Tensor] = {}
            for j, n in enumerate(wrt):
                gs = [r[j] for r in rows]
                if all(g is None for g in gs):
                    continue
                leaf = leaves[j]
                nbi = leaf.dim() - type(args[pos[n]]).BASE_NDIM
                parts = [flatten_from(torch.zeros_like(leaf) if g is None else g, nbi) for g in gs]
                row[n] = torch.stack(parts, dim=-2)
            blocks[oname] = row
    return blocks


def _contract(block: torch.Tensor, t: Any, *, out_cls: Any, sub: int) -> Any:
    nbase = t.BASE_NDIM
    d = t.data
    tf = flatten_from(d, d.dim() - nbase).unsqueeze(-1)
    r = torch.matmul(block, tf).squeeze(-1)
    r = r.reshape((*r.shape[:-1], *out_cls.BASE_SHAPE))
    return out_cls._wrap(r, sub, (), (), t.k_ndim, t.k_state, t.k_pairing)


def ad_pushforward(model: Any, args: Sequence[Any], v: Mapping[str, Mapping[str, Any]]) -> Any:
    """Forward with ``v`` where marked inputs get autograd derivatives."""
    ad_in = [n for n in model._ad_inputs if v.get(n)]
    rest = {n: s for n, s in v.items() if n not in model._ad_inputs}
    if rest:
        res = model.forward(*args, v=rest)
        outs, (v_out,) = split_result(model, res, 1)
    else:
        outs, _ = split_result(model, model.forward(*args), 0)
        v_out = {}
    if ad_in:
        blocks = local_jacobians(model, args, ad_in)
        for oname, y in outs.items():
            row = blocks.get(oname, {})
            actions = {
                n: functools.partial(_contract, b, out_cls=type(y), sub=y.sub_batch_ndim)
                for n, b in row.items()
            }
            pushed = apply_chain_rule(v, oname, actions, output=y).get(oname, {})
            if not pushed:
                continue
            mine = v_out.setdefault(oname, {})
            for leaf, t in pushed.items():
                mine[leaf] = t if leaf not in mine else accumulate([mine[leaf], t])
    return (*outs.values(), v_out)


def _params(model: Any, params: Sequence[str] | None) -> dict[str, torch.Tensor]:
    """Chosen parameters by reported name (aliases resolved by ``Model.parameter_name``)."""
    named = dict(model.named_parameters())
    if params is None:
        return named
    chosen: dict[str, torch.Tensor] = {}
    missing = []
    for p in params:
        try:
            q = model.parameter_name(p)
        except KeyError:
            q = p
        if q in named:
            chosen[q] = named[q]
        else:
            missing.append(p)
    if missing:
        raise KeyError(f"unknown parameter(s) {missing}; parameters: {sorted(named)}")
    return chosen


def param_jacobian(
    model: Any, inputs: Mapping[str, Any], params: Sequence[str] | None = None
) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
    """``(outputs, {out: {param: (*batch, *out_sub, *out_base, *param_base)}})`` by reverse mode
    (``batch`` the dynamic batch: a parameter is per batch element, shared by the sites of a
    sub-batched output)."""
    args = model.wrap_inputs(inputs)
    chosen = _params(model, params)
    bases = model.parameter_base_shapes()
    with torch.no_grad():
        outs0, _ = split_result(model, model(*args), 0)
    batch = broadcast(*[tuple(y.dynamic_batch_shape) for y in outs0.values()])
    with torch.enable_grad():
        copies = {}
        for n, p in chosen.items():
            pb = bases.get(n, ())
            copies[n] = p.detach().expand((*batch, *pb)).clone().requires_grad_(True)
        outs, _ = split_result(model, functional_call(model, copies, tuple(args)), 0)
        jac: dict[str, dict[str, torch.Tensor]] = {}
        for oname, y in outs.items():
            trailing = (*y.sub_batch_shape, *y.BASE_SHAPE)
            yd = y.data.expand((*batch, *trailing))
            flat = flatten_from(yd, len(batch))
            row: dict[str, torch.Tensor] = {}
            grads = [
                torch.autograd.grad(
                    flat[..., c],
                    list(copies.values()),
                    torch.ones_like(flat[..., c]),
                    retain_graph=True,
                    allow_unused=True,
                )
                for c in range(flat.shape[-1])
            ]
            for j, (n, cp) in enumerate(copies.items()):
                parts = [torch.zeros_like(cp) if g[j] is None else g[j] for g in grads]
                pb = tuple(cp.shape[len(batch) :])
                blk = torch.stack([flatten_from(q, len(batch)) for q in parts], dim=-2)
                row[n] = blk.reshape((*batch, *trailing, *pb))
            jac[oname] = row
    return {k: v.data.detach() for k, v in outs.items()}, jac


def param_vjp(
    model: Any,
    inputs: Mapping[str, Any],
    cotangents: Mapping[str, Any],
    params: Sequence[str] | None = None,
) -> dict[str, torch.Tensor]:
    """``{param: Σ_batch Σ_out cot_out · ∂out/∂param}`` (missing cotangents are zero)."""
    args = model.wrap_inputs(inputs)
    chosen = _params(model, params)
    with torch.enable_grad():
        outs, _ = split_result(model, model(*args), 0)
        total = None
        for oname, cot in cotangents.items():
            if oname not in outs:
                raise KeyError(f"param_vjp: '{oname}' is not an output; outputs: {list(outs)}")
            c = cot.data if hasattr(cot, "data") and not isinstance(cot, torch.Tensor) else cot
            term = (outs[oname].data * c).sum()
            total = term if total is None else total + term
        if total is None or not total.requires_grad:
            return {n: torch.zeros_like(p) for n, p in chosen.items()}
        grads = torch.autograd.grad(total, list(chosen.values()), allow_unused=True)
    return {
        n: (torch.zeros_like(p) if g is None else g)
        for (n, p), g in zip(chosen.items(), grads, strict=True)
    }
