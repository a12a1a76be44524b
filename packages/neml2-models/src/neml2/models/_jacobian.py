r"""``Model.jacobian``: dense blocks from identity seeds pushed through the forward chain rule.

Seeding: an input without sub-batch gets a plain identity seed (one full K axis of size
:math:`n = \prod` base shape); an input with sub-batch shape ``S_in`` gets the per-site seed of
:func:`neml2.tensors.sub_batch_seed` (``len(S_in)`` paired broadcast K axes + the base K axis),
so models that reduce or mix sites *expose* the site index in K instead of summing it.

Block layout of ``J[out][in]`` (a :class:`neml2.tensors.Tensor` with ``batch_ndim = len(B)``,
``sub_batch_ndim = len(S_out)``), ``B`` the common dynamic batch of inputs and outputs:

* site-diagonal (every per-site seed stayed paired and ``S_in == S_out``, or ``in`` has no
  sub-batch): ``(*B, *S_out, *out_base, *in_base)`` — entry :math:`\partial y_{b,s}/\partial
  x_{b,s}` (v3's layout);
* otherwise (sub-batch reductions, differences, site mixing):
  ``(*B, *S_out, *out_base, *S_in, *in_base)`` — entry :math:`\partial y_{b,s}/\partial x_{b,t}`.

Derivatives across dynamic-batch entries have no block layout: when an output depends on an input
whose dynamic batch does not broadcast into the output's (e.g. ``SR2DynamicSum``), a
``ValueError`` names the model, output and input and points to :meth:`Model.jvp`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from neml2.models._derivatives import split_result
from neml2.models._typed import broadcast, identity_seed
from neml2.tensors import Tensor, fullify, sub_batch_seed

__all__ = ["jacobian"]

_BROADCAST = "broadcast"


def _where(model: Any) -> str:
    return f"{type(model).__name__} '{model._hit_name}'"


def _seed(x: Any) -> Any:
    return sub_batch_seed(x) if x.sub_batch_ndim else identity_seed(x)


def _check_dynamic(model: Any, oname: str, y: Any, iname: str, x: Any) -> None:
    dy, dx = tuple(y.dynamic_batch_shape), tuple(x.dynamic_batch_shape)
    try:
        ok = broadcast(dx, dy) == dy
    except RuntimeError:
        ok = False
    if not ok:
        raise ValueError(
            f"jacobian(): {_where(model)}: output '{oname}' (dynamic batch {dy}) depends on "
            f"input '{iname}' (dynamic batch {dx}) but does not keep its dynamic-batch axes "
            f"(the model reduces or reshapes dynamic-batch axes), so J['{oname}']['{iname}'] has "
            f"no per-batch-entry block layout. Use Model.jvp(inputs, tangents) for directional "
            f"derivatives, or mark per-site axes as sub-batch (e.g. SR2(x, sub_batch_ndim=1)) to "
            f"get (*batch, *out_sub, *out_base, *in_sub, *in_base) blocks"
        )


def _site_diagonal(t: Any, ns: int, s_in: tuple[int, ...], s_out: tuple[int, ...]) -> bool:
    if ns == 0:
        return True
    return (
        s_in == s_out
        and t.k_pairing[:ns] == tuple(range(ns))
        and all(s == _BROADCAST for s in t.k_state[:ns])
    )


def _expand_rest(
    d: torch.Tensor, k: int, t_sub: int, b: tuple[int, ...], s: tuple[int, ...], nbase: int
) -> torch.Tensor:
    """Pad/expand the ``(*dyn, *sub, *base)`` part after ``k`` K axes to ``(*b, *s, *base)``
    (dynamic and sub regions aligned separately)."""
    shp = tuple(d.shape)
    dyn = shp[k : len(shp) - nbase - t_sub]
    sub = shp[len(shp) - nbase - t_sub : len(shp) - nbase]
    base = shp[len(shp) - nbase :]
    if len(dyn) > len(b) or len(sub) > len(s):
        raise RuntimeError(f"jacobian(): tangent batch {dyn}|{sub} does not fit batch {b}|{s}")
    new = (*shp[:k], *((1,) * (len(b) - len(dyn))), *dyn, *((1,) * (len(s) - len(sub))), *sub)
    return d.reshape((*new, *base)).expand((*shp[:k], *b, *s, *base))


def _block(
    model: Any, t: Any, y: Any, x: Any, b: tuple[int, ...], names: tuple[str, str]
) -> Tensor:
    ns = x.sub_batch_ndim
    s_in, s_out = tuple(x.sub_batch_shape), tuple(y.sub_batch_shape)
    ob, ib = tuple(y.BASE_SHAPE), tuple(x.BASE_SHAPE)
    nb = len(ob)
    if t.k_ndim != ns + 1:
        raise RuntimeError(
            f"jacobian(): {_where(model)}: tangent of '{names[0]}' w.r.t. '{names[1]}' has "
            f"{t.k_ndim} K axes, expected {ns + 1}"
        )
    if _site_diagonal(t, ns, s_in, s_out):
        d = t.data.reshape(t.data.shape[ns:])  # drop the size-1 paired K axes
        d = _expand_rest(d, 1, t.sub_batch_ndim, b, s_out, nb).movedim(0, -1)
        raw = d.reshape((*b, *s_out, *ob, *ib))
    else:
        t = fullify(t)
        d = t.data
        kshape = tuple(d.shape[: ns + 1])
        want = (*s_in, math.prod(ib))
        if any(n not in (1, w) for n, w in zip(kshape, want, strict=True)):
            raise RuntimeError(
                f"jacobian(): {_where(model)}: tangent of '{names[0]}' w.r.t. '{names[1]}' has "
                f"K shape {kshape}, expected {want}"
            )
        d = _expand_rest(d, ns + 1, t.sub_batch_ndim, b, s_out, nb)
        d = d.expand((*want, *d.shape[ns + 1 :]))
        d = d.movedim(tuple(range(ns + 1)), tuple(range(d.dim() - ns - 1, d.dim())))
        raw = d.reshape((*b, *s_out, *ob, *s_in, *ib))
    return Tensor(raw, batch_ndim=len(b), sub_batch_ndim=len(s_out))


def _zero_block(y: Any, x: Any, b: tuple[int, ...]) -> Tensor:
    s_in, s_out = tuple(x.sub_batch_shape), tuple(y.sub_batch_shape)
    ob, ib = tuple(y.BASE_SHAPE), tuple(x.BASE_SHAPE)
    mid = () if not s_in or s_in == s_out else s_in
    raw = torch.zeros((*b, *s_out, *ob, *mid, *ib), dtype=y.data.dtype, device=y.data.device)
    return Tensor(raw, batch_ndim=len(b), sub_batch_ndim=len(s_out))


def jacobian(model: Any, inputs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Outputs and dense Jacobian blocks ``J[out][in]`` (layouts in the module docstring)."""
    args = model.wrap_inputs(inputs)
    names = list(model.input_spec)
    v = {n: {n: _seed(x)} for n, x in zip(names, args, strict=True)}
    outs, (v_out,) = split_result(model, model(*args, v=v), 1)
    for oname, y in outs.items():
        tangents = v_out.get(oname, {})
        for iname, x in zip(names, args, strict=True):
            if iname in tangents:
                _check_dynamic(model, oname, y, iname, x)
    try:
        b = broadcast(*[tuple(w.dynamic_batch_shape) for w in (*outs.values(), *args)])
    except RuntimeError as e:
        raise ValueError(
            f"jacobian(): {_where(model)}: dynamic batch shapes of inputs and outputs do not "
            f"broadcast ({e}); use Model.jvp(inputs, tangents)"
        ) from None
    J: dict[str, dict[str, Any]] = {}
    for oname, y in outs.items():
        tangents = v_out.get(oname, {})
        row: dict[str, Any] = {}
        for iname, x in zip(names, args, strict=True):
            t = tangents.get(iname)
            row[iname] = (
                _zero_block(y, x, b) if t is None else _block(model, t, y, x, b, (oname, iname))
            )
        J[oname] = row
    return outs, J
