r"""Implicit-function-theorem helpers of ``ImplicitUpdate``.

* :func:`contract` applies a block of :math:`\mathrm d u/\mathrm d g = -A^{-1}B` to an incoming
  tangent of a given :math:`g` (per-site tangents of block groups keep their pairing);
* :class:`ImplicitSolve` is the ``torch.autograd.Function`` of a solve: forward solves detached
  (or takes the solution, an ``AssembledVector`` passed for the guess: substepping solves first);
  backward solves :math:`A^T\lambda = \partial L/\partial u^*` and returns
  :math:`-(\partial r/\partial\theta)^T\lambda` for the givens and the residual model's
  parameters (re-evaluating :math:`r(u^*)` with ``functional_call`` so that parameter copies, as in
  ``Model.param_jacobian``, receive the gradient).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from torch.func import functional_call

from neml2.es import AssembledVector
from neml2.es._tangents import fit_rest
from neml2.es.nonlinear_system import ModelNonlinearSystem
from neml2.tensors import TensorWrapper, fullify
from neml2.tensors.hooks import plain_eager

__all__ = ["ImplicitSolve", "contract", "wrap_givens"]


def _fit(lam: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """Bring an adjoint block to the (possibly broadcast) shape of the residual it pairs with."""
    if lam.shape == shape:
        return lam
    if lam.dim() >= len(shape):
        try:
            return lam.sum_to_size(shape)
        except RuntimeError:
            pass
    return lam.expand(shape)


def contract(
    blk: torch.Tensor,
    t: TensorWrapper,
    out_cls: Any,
    nbatch: int,
    g_sub: tuple[int, ...],
    u_sub: tuple[int, ...],
    u_block: bool,
) -> TensorWrapper:
    """Apply a ``du/dg`` block to a tangent ``t (*K, *B_t, *S_g, *base_g)`` of ``g``.

    ``blk`` is ``(*B, *S_u, n_u, S_g·n_g)`` for a block unknown group, else
    ``(*B, S_u·n_u, S_g·n_g)``; the result is ``(*K, *B, *S_u, *base_u)``.
    """
    ns = len(u_sub)
    if u_block and ns and g_sub == u_sub and _paired(t, ns):
        return _contract_per_site(blk, t, out_cls, nbatch, u_sub)
    t = fullify(t)
    d = t.data
    kn, nbase, tsub = t.k_ndim, t.BASE_NDIM, t.sub_batch_ndim
    dyn = tuple(d.shape[kn : d.dim() - nbase - tsub])
    dyn = (1,) * max(0, nbatch - len(dyn)) + dyn
    d = fit_rest(d, kn, tsub, dyn, g_sub, nbase)
    if not u_block and all(n == 1 for n in dyn):
        # a batch-free tangent (e.g. Model.jacobian's identity seeds): one GEMM over the batch,
        # (*B, rows, cols) @ (cols, K), instead of a matmul broadcasting blk over the K axes
        kshape = d.shape[:kn]
        seeds = d.reshape(math.prod(kshape), -1)
        r = (blk if _is_identity(seeds) else torch.matmul(blk, seeds.T)).movedim(-1, 0)
        r = r.reshape((*kshape, *r.shape[1:-1], *u_sub, *out_cls.BASE_SHAPE))
    else:
        d = d.reshape((*d.shape[:kn], *dyn, *(1,) * (len(u_sub) if u_block else 0), -1, 1))
        r = torch.matmul(blk, d).squeeze(-1)
        lead = r.shape[: r.dim() - (len(u_sub) + 1 if u_block else 1)]
        r = r.reshape((*lead, *u_sub, *out_cls.BASE_SHAPE))
    out: TensorWrapper = out_cls._wrap(r, len(u_sub), (), (), kn, t.k_state, t.k_pairing)
    return out


def _is_identity(seeds: torch.Tensor) -> bool:
    """Plain eager identity seeds (``Model.jacobian``'s): applying the block to them is the block."""
    n = seeds.shape[0]
    return (
        seeds.shape[1] == n
        and plain_eager(seeds)
        and not seeds.requires_grad
        and torch.equal(seeds, torch.eye(n, dtype=seeds.dtype, device=seeds.device))
    )


def wrap_givens(
    system: ModelNonlinearSystem, tensors: Sequence[torch.Tensor], gsub: tuple[int, ...]
) -> dict[str, Any]:
    return {
        n: system.types[n]._wrap(x, ns)
        for n, x, ns in zip(system.given_names, tensors[: len(gsub)], gsub, strict=True)
    }


def _paired(t: TensorWrapper, ns: int) -> bool:
    """The last ``ns`` sub axes of ``t`` carry per-site (paired broadcast) K axes."""
    pairs = {p for p, st in zip(t.k_pairing, t.k_state, strict=True) if st == "broadcast"}
    return (
        t.sub_batch_ndim == ns
        and pairs == set(range(ns))
        and len(pairs) == sum(1 for p in t.k_pairing if p is not None)
    )


def _contract_per_site(
    blk: torch.Tensor, t: TensorWrapper, out_cls: Any, nbatch: int, sub: tuple[int, ...]
) -> TensorWrapper:
    """Block-diagonal ``du/dg`` (same sites) applied to a per-site tangent; pairing is kept."""
    ns = len(sub)
    s = math.prod(sub)
    ng = blk.shape[-1] // s
    # (*B, *S, n_u, S·n_g) → its site diagonal (*B, *S, n_u, n_g)
    b = blk.reshape((*blk.shape[: blk.dim() - ns - 2], s, blk.shape[-2], s, ng))
    b = torch.diagonal(b, dim1=-4, dim2=-2).movedim(-1, -3)
    b = b.reshape((*b.shape[:-3], *sub, b.shape[-2], ng))
    d = t.data
    kn, nbase = t.k_ndim, t.BASE_NDIM
    dyn = tuple(d.shape[kn : d.dim() - nbase - ns])
    dyn = (1,) * max(0, nbatch - len(dyn)) + dyn
    d = fit_rest(d, kn, ns, dyn, tuple(d.shape[d.dim() - nbase - ns : d.dim() - nbase]), nbase)
    d = d.reshape((*d.shape[: d.dim() - nbase], ng, 1))
    r = torch.matmul(b, d).squeeze(-1)
    r = r.reshape((*r.shape[:-1], *out_cls.BASE_SHAPE))
    out: TensorWrapper = out_cls._wrap(r, ns, (), (), kn, t.k_state, t.k_pairing)
    return out


class ImplicitSolve(torch.autograd.Function):
    """Detached solve with the adjoint (IFT) backward; inputs: givens then parameters."""

    @staticmethod
    def forward(
        ctx: Any,
        iu: Any,
        guess: dict[str, Any] | AssembledVector,
        gsub: tuple[int, ...],
        *tensors: torch.Tensor,
    ) -> tuple[torch.Tensor, ...]:
        system = iu.system
        if isinstance(guess, AssembledVector):  # already solved at these givens (substepping)
            u = guess
        else:
            u = iu._solve(wrap_givens(system, tensors, gsub), guess)
        ctx.iu = iu
        ctx.u = u
        ctx.gsub = gsub
        ctx.A = system.cached_jacobian(u)
        ctx.save_for_backward(*tensors)
        parts = u.unpack()
        return tuple(parts[n].clone() for n in system.unknown_names)

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor | None) -> tuple[torch.Tensor | None, ...]:
        iu = ctx.iu
        system = iu.system
        tensors = ctx.saved_tensors
        gsub = ctx.gsub
        n_given = len(gsub)
        need = ctx.needs_input_grad[3:]
        u: AssembledVector = ctx.u
        with torch.no_grad():
            system.initialize(wrap_givens(system, tensors, gsub))
            system.set_unknown_sub_batch(
                {n: u.layout.variable(n).sub_batch_shape for n in system.unknown_names}
            )
            A = ctx.A
            if A is None:
                A, _, _ = system.assemble(u, need_A=True, need_b=False)
            parts = u.unpack()
            cot = {
                n: (torch.zeros_like(parts[n]) if g is None else g)
                for n, g in zip(system.unknown_names, grads, strict=True)
            }
            lam = (
                iu.sensitivity_solver("param")
                .solve(A.transpose(), AssembledVector.pack(system.unknown_layout, cot))
                .unpack()
            )
        rm = system.model
        pnames = iu._param_names
        with torch.enable_grad():
            leaves = [
                x.detach().requires_grad_(bool(nd)) for x, nd in zip(tensors, need, strict=True)
            ]
            vals: dict[str, Any] = wrap_givens(system, leaves, gsub)
            vals.update({n: w.detach() for n, w in system.unpack_unknowns(u).items()})
            args = tuple(vals[n] for n in rm.input_spec)
            res = functional_call(rm, dict(zip(pnames, leaves[n_given:], strict=True)), args)
            res = res if isinstance(res, tuple) else (res,)
            outs = dict(zip(rm.output_spec, res, strict=True))
            ys, gos = [], []
            for r in system.residual_names:
                y = outs[r].data
                if y.requires_grad:
                    ys.append(y)
                    gos.append(-_fit(lam[r], y.shape))
            wrt = [x for x in leaves if x.requires_grad]
            got = torch.autograd.grad(ys, wrt, gos, allow_unused=True) if ys and wrt else ()
        it = iter(got)
        out: list[torch.Tensor | None] = [None, None, None]
        for x in leaves:
            if not x.requires_grad:
                out.append(None)
                continue
            g = next(it)
            out.append(torch.zeros_like(x) if g is None else g)
        return tuple(out)
