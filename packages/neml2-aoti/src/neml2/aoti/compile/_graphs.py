r"""Export adapters: ``nn.Module``\ s with raw tensors in and out, one per compiled graph.

Each adapter takes ``(*variables, *params)`` (implicit graphs: ``(u, *givens, *params)``), every
tensor with the batch ``B`` on axis 0; promoted parameters arrive per batch element
``(B, *shape)`` and are routed into the model with :func:`torch.func.functional_call` (all other
parameters stay module state and are baked as constants). Graph semantics: ARTIFACT.md §3.

Derivatives: input blocks by the forward chain rule (``Model.jacobian``; the equation system's
``assemble`` for ``A = ∂r/∂u`` and ``B = ∂r/∂g``); parameter blocks by reverse mode, one pass per
output component, relying on batch entries being independent (``d y_b / d θ_b``). Blocks of
sub-batched variables are returned in the full per-site layout ``(B, *S_out, *out_base, *S_in,
*in_base)`` (parameter blocks ``(B, *S_out, *out_base, *θ)``), the runtime's flat
``(size_out, size_in)`` matrix; a site-diagonal eager block is expanded to it
(:func:`_site_block`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from neml2.aoti.compile._prepare import ParamInfo, Prepared
from neml2.models.boundary import VarInfo

__all__ = ["ForwardGraph", "ImplicitGraph", "PredictorGraph", "implicit_layout"]


class _Invoke(nn.Module):
    """Holds the model as ``m`` so ``functional_call`` can re-route its parameters."""

    def __init__(self, m: nn.Module) -> None:
        super().__init__()
        self.m = m

    def forward(self, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)


def _wrap(cls: Any, x: torch.Tensor, sub: Sequence[int]) -> Any:
    return cls(x, sub_batch_ndim=len(sub))


def _to_batch(t: torch.Tensor, b: Any, trailing: Sequence[int]) -> torch.Tensor:
    """``t`` as a contiguous ``(B, *trailing)`` tensor (broadcast if it lacks the batch)."""
    shape = (b, *trailing)
    if tuple(t.shape) != shape:
        t = torch.broadcast_to(t.reshape((-1, *trailing)) if t.ndim > len(trailing) else t, shape)
    return t.contiguous()


def _first_row(t: torch.Tensor, trailing: Sequence[int]) -> torch.Tensor:
    """The first batch row of a batch-independent block, as ``(1, *trailing)``."""
    return t.reshape((-1, *trailing))[:1] if t.ndim > len(trailing) else t


def _trailing(v: VarInfo) -> tuple[int, ...]:
    """Sub-batch + base shape: the axes of a variable after its batch."""
    return (*v.sub_batch_shape, *v.base_shape)


def _site_block(t: torch.Tensor, sub: Sequence[int], ob: Sequence[int], ib: Sequence[int]) -> Any:
    r"""A site-diagonal block ``(B, *S, *ob, *ib)`` in the full layout ``(B, *S, *ob, *S, *ib)``:
    :math:`J_{s \alpha t \beta} = \delta_{st} D_{s \alpha \beta}`."""
    n, nob, nib = math.prod(sub), math.prod(ob), math.prod(ib)
    d = t.reshape((-1, n, nob, 1, nib))
    eye = torch.eye(n, dtype=t.dtype, device=t.device).reshape((1, n, 1, n, 1))
    return (d * eye).reshape((-1, *sub, *ob, *sub, *ib))


def _param_blocks(
    outs: Sequence[torch.Tensor], thetas: Sequence[torch.Tensor], b: Any
) -> list[list[torch.Tensor | None]]:
    """``d outs[i] / d thetas[j]`` per batch element: ``(B, n_out_i, *θ_j shape)`` (None: no path)."""
    res: list[list[torch.Tensor | None]] = []
    for y in outs:
        flat = y.reshape(y.shape[0], -1) if y.ndim else y.reshape(1, 1)
        cols: list[list[torch.Tensor | None]] = [[] for _ in thetas]
        for k in range(flat.shape[-1]):
            gs = torch.autograd.grad(
                flat[:, k].sum(), list(thetas), retain_graph=True, allow_unused=True
            )
            for j, g in enumerate(gs):
                cols[j].append(g)
        row: list[torch.Tensor | None] = []
        for j, th in enumerate(thetas):
            if all(g is None for g in cols[j]):
                row.append(None)
                continue
            gs2 = [torch.zeros_like(th) if g is None else g for g in cols[j]]
            row.append(torch.stack(gs2, dim=1).reshape(b, len(gs2), *th.shape[1:]))
        res.append(row)
    return res


class ForwardGraph(nn.Module):
    """A forward segment's ``value``, ``jvp`` or ``pjac`` graph (ARTIFACT.md §3.1)."""

    def __init__(self, prep: Prepared, mode: str) -> None:
        super().__init__()
        self.inv = _Invoke(prep.model)
        self.mode = mode
        self.ins = list(prep.inputs)
        self.outs = list(prep.outputs)
        self.params = list(prep.params)
        self.types = dict(prep.model.input_spec)
        self.pairs = list(prep.pairs)
        self.site_diagonal = prep.site_diagonal
        self.param_pairs = list(prep.param_pairs)
        #: per pair of the jvp graph: the block depends on no input value (a constant tangent such
        #: as a fixed stiffness) and is emitted as (1, ...); set by the pipeline after a first export
        self.batch_independent = [False] * len(self.pairs)

    def _pdict(self, ps: Sequence[torch.Tensor]) -> dict[str, torch.Tensor]:
        return {f"m.{p.internal}": t for p, t in zip(self.params, ps, strict=True)}

    def forward(self, *flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        n = len(self.ins)
        xs, ps = flat[:n], list(flat[n:])
        b = flat[0].shape[0] if flat else 1  # no inputs: constant outputs, one row
        args = [
            _wrap(self.types[v.name], x, v.sub_batch_shape)
            for v, x in zip(self.ins, xs, strict=True)
        ]
        m: Any = self.inv.m
        if self.mode == "pjac":
            with torch.enable_grad():
                ps = [p.detach().requires_grad_(True) for p in ps]
                got = torch.func.functional_call(self.inv, self._pdict(ps), (m, *args))
                got = got if isinstance(got, tuple) else (got,)
                byname = {v.name: r.data for v, r in zip(self.outs, got, strict=True)}
                wanted = list(dict.fromkeys(o for o, _ in self.param_pairs))
                pidx = {p.name: k for k, p in enumerate(self.params)}
                blocks = _param_blocks([byname[o] for o in wanted], ps, b)
            out = []
            shapes = {v.name: _trailing(v) for v in self.outs}
            for o, th in self.param_pairs:
                blk = blocks[wanted.index(o)][pidx[th]]
                pshape = tuple(self.params[pidx[th]].shape)
                trailing = (*shapes[o], *pshape)
                if blk is None:
                    blk = ps[pidx[th]].new_zeros(())
                out.append(_to_batch(blk.reshape(-1, *trailing), b, trailing).detach())
            return tuple(out)
        if self.mode == "value":
            res = torch.func.functional_call(self.inv, self._pdict(ps), (m, *args))
            res = res if isinstance(res, tuple) else (res,)
            return tuple(
                _to_batch(r.data, b, (*v.sub_batch_shape, *v.base_shape))
                for v, r in zip(self.outs, res, strict=True)
            )
        state = {v.name: a for v, a in zip(self.ins, args, strict=True)}
        outs, jac = torch.func.functional_call(self.inv, self._pdict(ps), (m.jacobian, state))
        values = tuple(
            _to_batch(outs[v.name].data, b, (*v.sub_batch_shape, *v.base_shape)) for v in self.outs
        )
        info = {v.name: v for v in (*self.ins, *self.outs)}
        jvp_blocks: list[torch.Tensor] = []
        for (o, i), const in zip(self.pairs, self.batch_independent, strict=True):
            t, trailing = jac[o][i].data, (*_trailing(info[o]), *_trailing(info[i]))
            if (o, i) in self.site_diagonal:
                vo, vi = info[o], info[i]
                t = _site_block(t, vo.sub_batch_shape, vo.base_shape, vi.base_shape)
            jvp_blocks.append(_to_batch(_first_row(t, trailing), 1, trailing) if const else
                          _to_batch(t, b, trailing))  # fmt: skip
        return (*values, *jvp_blocks)


def implicit_layout(prep: Prepared) -> tuple[list[dict[str, Any]], list[VarInfo], list[str]]:
    """``(unknowns with offsets, givens, guess inputs)`` of a root ImplicitUpdate."""
    m = prep.model
    system = m.system
    subs = {v.name: v.sub_batch_shape for v in prep.inputs}
    usub = {
        u: tuple(system.declared_sub.get(u, subs.get(f"{u}~1", subs.get(u, ()))))
        for u in system.unknown_names
    }
    system.set_unknown_sub_batch(usub)
    unknowns: list[dict[str, Any]] = []
    start = 0
    for g in system.unknown_layout.groups:
        if g.is_block:
            raise ValueError(
                f"ImplicitUpdate '{prep.name}': unknown group {list(g.names)} has structure "
                f"'block'; neml2-compile supports dense unknown groups"
            )
        for i, var in enumerate(g.variables):
            cls = system.types[var.name]
            unknowns.append(
                {
                    "name": var.name,
                    "var_type": cls.__name__,
                    "base_shape": list(cls.BASE_SHAPE),
                    "sub_batch_shape": list(var.sub_batch_shape),
                    "offset": start + g.offsets[i],
                    "size": g.offsets[i + 1] - g.offsets[i],
                }
            )
        start += g.flat_size
    info = {v.name: v for v in prep.inputs}
    givens = []
    for n in system.given_names:
        v = info.get(n)
        if v is None:  # produced by the predictor only: not possible for a given
            raise ValueError(f"ImplicitUpdate '{prep.name}': given '{n}' is not a model input")
        givens.append(v)
    return unknowns, givens, list(m.guess_inputs)


class ImplicitGraph(nn.Module):
    """An implicit segment's ``residual``/``jacobian``/``jacobian_given``/``dr_dparam`` graph."""

    def __init__(
        self,
        prep: Prepared,
        mode: str,
        given_cols: Sequence[str] = (),
        param_cols: Sequence[ParamInfo] = (),
    ) -> None:
        super().__init__()
        self.inv = _Invoke(prep.model)
        self.mode = mode
        self.unknowns, self.givens, _ = implicit_layout(prep)
        self.params = list(prep.params)
        self.given_cols = list(given_cols)
        self.param_cols = list(param_cols)

    def _eval(self, u: torch.Tensor, gs: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        from neml2.es import AssembledVector

        system: Any = self.inv.m.system
        system.prepare_for_capture()
        givens = {
            v.name: _wrap(system.types[v.name], g, v.sub_batch_shape)
            for v, g in zip(self.givens, gs, strict=True)
        }
        system.initialize(givens)
        system.set_unknown_sub_batch(
            {d["name"]: tuple(d["sub_batch_shape"]) for d in self.unknowns}
        )
        uvec = AssembledVector.from_flat(system.unknown_layout, u)
        b = u.shape[0]
        n = u.shape[1]
        if self.mode in ("residual", "dr_dparam"):
            r = system.residual(uvec).flat()
            return (_to_batch(r, b, (n,)),)
        if self.mode == "jacobian":
            A, _, rhs = system.assemble(uvec, need_A=True, need_b=True)
            return _to_batch(rhs.flat(), b, (n,)), _to_batch(A.to_dense(), b, (n, n))
        _, Bm, _ = system.assemble(
            uvec, need_A=False, need_B=True, need_b=False, givens=self.given_cols
        )
        ng = Bm.to_dense().shape[-1]
        return (_to_batch(Bm.to_dense(), b, (n, ng)),)

    def forward(self, *flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ng = len(self.givens)
        u, gs, ps = flat[0], list(flat[1 : ng + 1]), list(flat[ng + 1 :])
        b = u.shape[0]
        if self.mode != "dr_dparam":
            pd = {f"m.{p.internal}": t for p, t in zip(self.params, ps, strict=True)}
            res = torch.func.functional_call(self.inv, pd, (self._eval, u, gs))
            return tuple(t.detach() for t in res)
        with torch.enable_grad():
            ps = [p.detach().requires_grad_(True) for p in ps]
            pd = {f"m.{p.internal}": t for p, t in zip(self.params, ps, strict=True)}
            (bvec,) = torch.func.functional_call(self.inv, pd, (self._eval, u, gs))
            idx = {p.name: k for k, p in enumerate(self.params)}
            sel = [ps[idx[p.name]] for p in self.param_cols]
            (row,) = _param_blocks([bvec], sel, b)
        n = u.shape[1]
        cols = []
        for p, blk in zip(self.param_cols, row, strict=True):
            if blk is None:
                cols.append(u.new_zeros(()).expand(b, n, p.size))
            else:  # b = -r, so dr/dθ = -db/dθ
                cols.append(-blk.reshape(b, n, p.size))
        return (torch.cat(cols, dim=-1).contiguous().detach(),)


class PredictorGraph(nn.Module):
    """The ImplicitUpdate's predictor: ``(*predictor inputs) → (*predictor outputs)``."""

    def __init__(self, prep: Prepared) -> None:
        super().__init__()
        self.pred = prep.model.predictor
        info = {v.name: v for v in prep.inputs}
        self.ins = [info[n] for n in self.pred.input_spec]
        outs = {d["name"]: d for d in implicit_layout(prep)[0]}
        self.outs = [outs[n] for n in self.pred.output_spec]

    def forward(self, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        b = xs[0].shape[0]
        args = [
            _wrap(self.pred.input_spec[v.name], x, v.sub_batch_shape)
            for v, x in zip(self.ins, xs, strict=True)
        ]
        res = self.pred(*args)
        res = res if isinstance(res, tuple) else (res,)
        return tuple(
            _to_batch(r.data, b, (*d["sub_batch_shape"], *d["base_shape"]))
            for d, r in zip(self.outs, res, strict=True)
        )
