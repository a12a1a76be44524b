"""Test harness for models: values, Jacobians (autograd + finite differences), second order.

A test module declares a table of :class:`ModelCase` (HIT snippet + input values + an
independent expected function) and runs :func:`check_model` on each::

    CASES = [ModelCase("basic", HIT, inputs={"a": [1.0, 2.0]}, expected=lambda x: {...})]

    @pytest.mark.parametrize("case", CASES, ids=case_id)
    def test_model(case, dtype, device):
        check_model(case, dtype=dtype, device=device)

Checks: (1) outputs equal ``expected(numpy inputs)`` (dtype-appropriate tolerance);
(2) every ``jacobian()`` block equals ``torch.autograd.functional.jacobian`` of the plain forward
(float64, rtol 1e-10) and central finite differences (rel. 1e-6), per dynamic-batch entry; for
sub-batched inputs (``ModelCase.sub_batch``) the reference is the full per-site block
``(*B, *S_out, *out_base, *S_in, *in_base)`` (one FD column per site and component), reduced to
its equal-site entries when ``jacobian()`` returns the site-diagonal layout (the other entries
must then vanish); (3) when the model sets ``SUPPORTS_SECOND_ORDER``, the ``v2`` pushforward
equals autograd second derivatives (float64, rtol 1e-10): with plain seeds for site-diagonal
models (every input and output on one sub-batch shape, site-diagonal Jacobian blocks), else
with per-site seeds against the full second-derivative blocks per dynamic-batch entry (models
whose outputs couple sub-batch sites, or whose inputs and outputs have different sub-batches).
Registered types a case covers are read from its HIT text (``type = X`` lines).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from neml2.models._typed import broadcast, identity_seed
from neml2.tensors import TensorWrapper, fullify

__all__ = [
    "ModelCase",
    "case_id",
    "check_jacobian",
    "check_model",
    "check_second_order",
    "check_values",
    "covered_types",
    "load_case_model",
    "make_inputs",
]

_TYPE_RE = re.compile(r"^\s*type\s*:?=\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)

Expected = Callable[[dict[str, np.ndarray]], Mapping[str, Any]]


@dataclass
class ModelCase:
    """One harness scenario.

    ``hit``: input text (a ``[Models]`` section, plus ``[Tensors]`` etc. if needed);
    ``model``: block to test; ``inputs``: variable → value (nested list, numpy array, tensor or
    wrapper; storage layout ``(*batch, *base)``; inputs are broadcast to a common batch);
    ``expected``: independent function of the numpy inputs (float64) returning
    ``{output: array}`` (``None`` skips the value check — use only for derivative-only cases);
    ``rtol``/``atol``: float64 value tolerances (default 1e-10/1e-12); ``rtol32``/``atol32``:
    tolerances for other dtypes (default 1e-5/1e-6; loosen for ill-conditioned formulas);
    ``fd_eps``: finite-difference step (relative to ``max(1, |x|)``); ``second_order``: force
    (``True``) or skip (``False``) the v2 check (default: the model's flag); ``sub_batch``:
    input → number of its trailing batch axes that are sub-batch axes (default 0; dynamic batches
    are broadcast across inputs, sub-batch shapes are kept per input).
    """

    name: str
    hit: str
    inputs: Mapping[str, Any]
    expected: Expected | None = None
    model: str = "model"
    rtol: float | None = None
    atol: float | None = None
    rtol32: float = 1e-5
    atol32: float = 1e-6
    fd_eps: float = 1e-6
    fd_rtol: float = 1e-6
    second_order: bool | None = None
    derivatives: bool = True
    extra_types: Sequence[str] = field(default_factory=tuple)
    sub_batch: Mapping[str, int] = field(default_factory=dict)

    @property
    def types(self) -> set[str]:
        """Registered types this case covers."""
        return set(_TYPE_RE.findall(self.hit)) | set(self.extra_types)


def case_id(case: ModelCase) -> str:
    """pytest id of a case."""
    return case.name


def covered_types(cases: Sequence[ModelCase]) -> set[str]:
    """Union of the types covered by ``cases``."""
    out: set[str] = set()
    for c in cases:
        out |= c.types
    return out


def load_case_model(case: ModelCase, dtype: torch.dtype, device: torch.device | str) -> Any:
    """Build ``case.model`` from ``case.hit`` converted to ``dtype``/``device``."""
    from neml2.factory import load_string

    return load_string(case.hit, dtype=dtype, device=device).get_model(case.model)


def make_inputs(
    model: Any,
    values: Mapping[str, Any],
    dtype: torch.dtype,
    device: torch.device | str,
    sub_batch: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Typed inputs of ``model`` from raw ``values``, dynamic batches broadcast to a common one.

    ``sub_batch[name]`` trailing batch axes of input ``name`` are sub-batch axes (kept as is).
    """
    subs = dict(sub_batch or {})
    missing = [n for n in model.input_spec if n not in values]
    if missing:
        raise KeyError(
            f"case is missing input value(s) {missing}; inputs: {list(model.input_spec)}"
        )
    extra = [n for n in [*values, *subs] if n not in model.input_spec]
    if extra:
        raise KeyError(
            f"case gives value(s) for non-input(s) {extra}; inputs: {list(model.input_spec)}"
        )
    raw = {}
    dyn: dict[str, tuple[int, ...]] = {}
    for n, cls in model.input_spec.items():
        x = values[n]
        x = x.data if isinstance(x, TensorWrapper) else x
        t = torch.as_tensor(np.asarray(x) if not isinstance(x, torch.Tensor) else x)
        raw[n] = t.to(dtype=dtype, device=device)
        nb = raw[n].dim() - cls.BASE_NDIM - subs.get(n, 0)
        if nb < 0:
            raise ValueError(f"input '{n}': sub_batch={subs[n]} exceeds its batch rank")
        dyn[n] = tuple(raw[n].shape[:nb])
    batch = broadcast(*dyn.values()) if dyn else ()
    out = {}
    for n, cls in model.input_spec.items():
        rest = tuple(raw[n].shape[len(dyn[n]) :])
        d = raw[n].reshape((1,) * (len(batch) - len(dyn[n])) + tuple(raw[n].shape))
        out[n] = cls(d.expand((*batch, *rest)).clone(), sub_batch_ndim=subs.get(n, 0))
    return out


def _tols(dtype: torch.dtype, case: ModelCase) -> tuple[float, float]:
    if dtype != torch.float64:
        return case.rtol32, case.atol32
    if case.rtol is not None:
        return case.rtol, case.atol if case.atol is not None else case.rtol * 1e-3
    return 1e-10, 1e-12


def check_values(case: ModelCase, model: Any, inputs: Mapping[str, Any]) -> None:
    """Outputs vs ``case.expected`` of the numpy inputs (computed in float64)."""
    if case.expected is None:
        return
    outs = model.value(inputs)
    np_in = {n: x.data.detach().cpu().double().numpy() for n, x in inputs.items()}
    expected = case.expected(np_in)
    unknown = set(expected) - set(outs)
    if unknown:
        raise AssertionError(
            f"expected values for non-output(s) {sorted(unknown)}; outputs: {list(outs)}"
        )
    for name, want in expected.items():
        rtol, atol = _tols(outs[name].data.dtype, case)
        got = outs[name].data.detach().cpu().double()
        want_t = torch.as_tensor(np.asarray(want, dtype=np.float64))
        want_t = want_t.expand_as(got) if want_t.dim() <= got.dim() else want_t
        torch.testing.assert_close(
            got, want_t, rtol=rtol, atol=atol, msg=_msg(f"output '{name}': ")
        )


def _msg(prefix: str) -> Callable[[str], str]:
    """An ``assert_close`` message callback prefixing the default message."""

    def f(m: str) -> str:
        return f"{prefix} {m}"

    return f


def _forward_raw(
    model: Any, types: list[Any], subs: list[int]
) -> Callable[..., tuple[torch.Tensor, ...]]:
    def f(*xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        res = model(*[t._wrap(x, n) for t, x, n in zip(types, xs, subs, strict=True)])
        res = res if isinstance(res, tuple) else (res,)
        return tuple(r.data for r in res)

    return f


def _per_batch(full: torch.Tensor, y: Any, x: Any, b: tuple[int, ...]) -> torch.Tensor:
    """Per-dynamic-batch-entry blocks of a full autograd Jacobian ``(*y.shape, *x.shape)``
    → ``(*b, *S_out, *out_base, *S_in, *in_base)``."""
    dy, dx = tuple(y.dynamic_batch_shape), tuple(x.dynamic_batch_shape)
    ny, nx = math.prod(dy), math.prod(dx)
    ry, rx = y.data.numel() // max(ny, 1), x.data.numel() // max(nx, 1)
    j = full.reshape(ny, ry, nx, rx)

    def index(d: tuple[int, ...]) -> torch.Tensor:
        i = torch.arange(math.prod(d), device=full.device).reshape(d)
        return i.reshape((1,) * (len(b) - len(d)) + d).expand(b).reshape(-1)

    blk = j[index(dy), :, index(dx), :]
    s_out, s_in = tuple(y.sub_batch_shape), tuple(x.sub_batch_shape)
    return blk.reshape((*b, *s_out, *y.BASE_SHAPE, *s_in, *x.BASE_SHAPE))


def _site_diagonal(a: torch.Tensor, nb: int, s: tuple[int, ...], no: int, ni: int) -> torch.Tensor:
    """``(*b, *S, *ob, *S, *ib)`` → ``(*b, *S, *ob, *ib)`` (entries with equal sites)."""
    ns = math.prod(s)
    r = a.reshape(nb, ns, no, ns, ni).permute(0, 1, 3, 2, 4).diagonal(dim1=1, dim2=2)
    return r.movedim(-1, 1)


def _off_site_diagonal(
    a: torch.Tensor, nb: int, s: tuple[int, ...], no: int, ni: int
) -> torch.Tensor:
    ns = math.prod(s)
    mask = ~torch.eye(ns, dtype=torch.bool, device=a.device)
    return a.reshape(nb, ns, no, ns, ni).permute(0, 1, 3, 2, 4)[:, mask]


def check_jacobian(case: ModelCase, model: Any, inputs: Mapping[str, Any]) -> None:
    """``jacobian()`` vs autograd (rtol 1e-10) and central finite differences (``fd_rtol``).

    Blocks in the site-diagonal layout ``(*B, *S, *out_base, *in_base)`` are compared with the
    equal-site entries of the reference (whose other entries must vanish); blocks in the full
    layout ``(*B, *S_out, *out_base, *S_in, *in_base)`` with all of it.
    """
    names = list(model.input_spec)
    types = [model.input_spec[n] for n in names]
    subs = [inputs[n].sub_batch_ndim for n in names]
    xs = [inputs[n].data for n in names]
    outs, J = model.jacobian(inputs)
    onames = list(model.output_spec)
    f = _forward_raw(model, types, subs)
    full = torch.autograd.functional.jacobian(f, tuple(xs))  # type: ignore[no-untyped-call]
    for oi, on in enumerate(onames):
        y = outs[on]
        for ii, inn in enumerate(names):
            x = inputs[inn]
            blk = J[on][inn]
            got = blk.data
            b = tuple(got.shape[: blk.batch_ndim])
            ad = _per_batch(full[oi][ii], y, x, b)
            with torch.no_grad():
                fd = _finite_difference(f, xs, oi, ii, y, x, b, case.fd_eps)
            s_in, s_out = tuple(x.sub_batch_shape), tuple(y.sub_batch_shape)
            if s_in and got.dim() != ad.dim():
                if s_in != s_out:
                    raise AssertionError(
                        f"J[{on}][{inn}]: site-diagonal layout {tuple(got.shape)} but input "
                        f"sub-batch {s_in} differs from output sub-batch {s_out}"
                    )
                dims = (math.prod(b), s_in, math.prod(y.BASE_SHAPE), math.prod(x.BASE_SHAPE))
                off = _off_site_diagonal(ad, *dims)
                torch.testing.assert_close(
                    off, torch.zeros_like(off), rtol=0, atol=1e-12,
                    msg=_msg(f"J[{on}][{inn}] site-diagonal layout but sites couple: "),
                )  # fmt: skip
                shape = (*b, *s_out, *y.BASE_SHAPE, *x.BASE_SHAPE)
                ad = _site_diagonal(ad, *dims).reshape(shape)
                fd = _site_diagonal(fd, *dims).reshape(shape)
            torch.testing.assert_close(
                got, ad, rtol=1e-10, atol=1e-12, msg=_msg(f"J[{on}][{inn}] vs autograd: ")
            )
            scale = max(1.0, float(fd.abs().max())) if fd.numel() else 1.0
            torch.testing.assert_close(
                got,
                fd,
                rtol=case.fd_rtol,
                atol=case.fd_rtol * scale,
                msg=_msg(f"J[{on}][{inn}] vs finite differences: "),
            )


def _finite_difference(
    f: Callable[..., tuple[torch.Tensor, ...]],
    xs: list[torch.Tensor],
    oi: int,
    ii: int,
    y: Any,
    x: Any,
    b: tuple[int, ...],
    eps: float,
) -> torch.Tensor:
    """Central differences ``(*b, *S_out, *out_base, *S_in, *in_base)``: one column per
    (input site, component), all dynamic-batch entries perturbed at once."""
    xd = xs[ii]
    nd = x.dynamic_batch_ndim
    flat = xd.reshape((*xd.shape[:nd], -1))
    nrest = y.sub_batch_ndim + y.BASE_NDIM
    cols = []
    for c in range(flat.shape[-1]):
        h = eps * torch.clamp(flat[..., c].abs(), min=1.0)
        plus, minus = flat.clone(), flat.clone()
        plus[..., c] += h
        minus[..., c] -= h
        args_p = list(xs)
        args_m = list(xs)
        args_p[ii] = plus.reshape(xd.shape)
        args_m[ii] = minus.reshape(xd.shape)
        dy = f(*args_p)[oi] - f(*args_m)[oi]
        ydyn = dy.dim() - nrest
        dy = dy.reshape((1,) * (len(b) - ydyn) + tuple(dy.shape))
        dy = dy.expand((*b, *dy.shape[len(b) :]))
        hb = h.reshape((1,) * (len(b) - h.dim()) + tuple(h.shape) + (1,) * nrest)
        cols.append(dy / (2 * hb))
    out = torch.stack(cols, dim=-1)
    return out.reshape((*out.shape[:-1], *x.sub_batch_shape, *x.BASE_SHAPE))


def check_second_order(case: ModelCase, model: Any, inputs: Mapping[str, Any]) -> None:
    """``v2`` pushforward (zero ``v2``) vs autograd second derivatives (rtol 1e-10).

    Site-diagonal models (see :func:`_couples_sites`) are checked with plain identity seeds
    (one Hessian per site); the others with per-site seeds against the full blocks
    ``d2 y[b, s] / d a[b, t] d c[b, t']`` (every output site ``s``, input sites ``t``, ``t'``
    and base components) per dynamic-batch entry ``b``.
    """
    if _couples_sites(model, inputs):
        _check_second_order_full(model, inputs)
    else:
        _check_second_order_plain(model, inputs)


def _couples_sites(model: Any, inputs: Mapping[str, Any]) -> bool:
    """Whether a plain-seed (site-diagonal) second-order check does not apply to ``model``:
    its inputs and outputs do not all share one sub-batch shape, or some ``jacobian()`` block
    has the full layout ``(*B, *S_out, *out_base, *S_in, *in_base)`` (outputs couple sites)."""
    outs = model.call_by_name(inputs)
    shapes = {tuple(w.sub_batch_shape) for w in (*inputs.values(), *outs.values())}
    if len(shapes) > 1:
        return True
    if shapes == {()}:
        return False
    outs, J = model.jacobian(inputs)
    return any(
        blk.data.dim()
        != blk.batch_ndim + blk.sub_batch_ndim + outs[on].BASE_NDIM + inputs[inn].BASE_NDIM
        for on, row in J.items()
        for inn, blk in row.items()
    )


def _site_seed(x: Any) -> Any:
    """Explicit identity seed of ``x``: one full K axis over every (sub-batch site, base
    component), data ``(M, 1…1, *S, *base)`` with ``M = prod(S) * prod(base)``."""
    cls = type(x)
    s = tuple(x.sub_batch_shape)
    m = math.prod(s) * math.prod(cls.BASE_SHAPE)
    nd = x.data.dim() - x.BASE_NDIM - x.sub_batch_ndim
    eye = torch.eye(m, dtype=x.data.dtype, device=x.data.device)
    eye = eye.reshape(m, *((1,) * nd), *s, *cls.BASE_SHAPE)
    return cls._wrap(eye, x.sub_batch_ndim, (), (), 1, ("full",), (None,))


def _second_tangent_blocks(t: Any, y: Any, b: tuple[int, ...], m: tuple[int, int]) -> torch.Tensor:
    """Second tangent ``t`` of output ``y`` (K ``(M_a, M_b)``) as ``(*b, R, M_a, M_b)``,
    ``R = prod(S_out) * prod(out_base)`` (dynamic and sub-batch regions aligned separately)."""
    t = fullify(t).materialize()
    if t.k_ndim != 2:
        raise AssertionError(f"second tangent with {t.k_ndim} K axes, expected 2")
    d: torch.Tensor = t.data
    nbase, nsub = y.BASE_NDIM, t.sub_batch_ndim
    shp = tuple(d.shape)
    dyn = shp[2 : len(shp) - nbase - nsub]
    sub = shp[len(shp) - nbase - nsub : len(shp) - nbase]
    s_out = tuple(y.sub_batch_shape)
    if len(dyn) > len(b) or len(sub) > len(s_out):
        raise AssertionError(f"second tangent batch {dyn}|{sub} does not fit {b}|{s_out}")
    pad = (*((1,) * (len(b) - len(dyn))), *dyn, *((1,) * (len(s_out) - len(sub))), *sub)
    d = d.reshape((*shp[:2], *pad, *shp[len(shp) - nbase :]))
    d = d.expand((*m, *b, *s_out, *y.BASE_SHAPE))
    return d.reshape(*m, *b, -1).movedim((0, 1), (-2, -1))


def _check_second_order_full(model: Any, inputs: Mapping[str, Any]) -> None:
    """``v2`` pushforward (per-site identity seeds) vs the full autograd second derivatives
    ``(*B, R, M_a, M_b)`` per dynamic-batch entry (every input on the same dynamic batch)."""
    names = list(model.input_spec)
    args = [inputs[n] for n in names]
    dyn = {tuple(x.dynamic_batch_shape) for x in args}
    if len(dyn) != 1:
        raise ValueError(
            f"second-order check of a site-coupling model needs every input on one dynamic "
            f"batch (make_inputs broadcasts them), got {sorted(dyn)}"
        )
    (b,) = dyn
    sizes = [math.prod(x.sub_batch_shape) * math.prod(type(x).BASE_SHAPE) for x in args]
    v = {n: {n: _site_seed(x)} for n, x in zip(names, args, strict=True)}
    v2_out = model(*args, v=v, v2={})[-1]
    with torch.enable_grad():
        leaves = [x.data.detach().clone().requires_grad_(True) for x in args]
        outs = model(
            *[type(x)._wrap(d, x.sub_batch_ndim) for x, d in zip(args, leaves, strict=True)]
        )
        outs = outs if isinstance(outs, tuple) else (outs,)
        for on, y in zip(model.output_spec, outs, strict=True):
            nd = y.dynamic_batch_ndim
            yf = y.data.reshape((*y.data.shape[:nd], -1))
            yf = yf.reshape((*((1,) * (len(b) - nd)), *yf.shape)).expand((*b, yf.shape[-1]))
            r = yf.shape[-1]
            want = [
                [y.data.new_zeros((*b, r, ma, mb)) for mb in sizes] for ma in sizes
            ]  # want[a][c][..., row, k, l] = d2 y[row] / da[k] dc[l]
            for row in range(r):
                if not yf.requires_grad:
                    break
                g = torch.autograd.grad(
                    yf[..., row].sum(), leaves, create_graph=True, allow_unused=True
                )
                for ai, ga in enumerate(g):
                    if ga is None or not ga.requires_grad:
                        continue
                    gaf = ga.reshape((*b, sizes[ai]))
                    for k in range(sizes[ai]):
                        hs = torch.autograd.grad(
                            gaf[..., k].sum(), leaves, retain_graph=True, allow_unused=True
                        )
                        for ci, h in enumerate(hs):
                            if h is not None:
                                want[ai][ci][..., row, k, :] = h.reshape((*b, sizes[ci]))
            for ai, a in enumerate(names):
                for ci, c in enumerate(names):
                    t = v2_out.get(on, {}).get(a, {}).get(c)
                    w = want[ai][ci].detach()
                    got = (
                        torch.zeros_like(w)
                        if t is None
                        else _second_tangent_blocks(t, y, b, (sizes[ai], sizes[ci]))
                    )
                    torch.testing.assert_close(
                        got, w, rtol=1e-10, atol=1e-12, msg=_msg(f"d2 {on} / d{a} d{c}: ")
                    )


def _check_second_order_plain(model: Any, inputs: Mapping[str, Any]) -> None:
    """``v2`` pushforward (identity first-order seeds, zero ``v2``) vs autograd Hessians of a
    site-diagonal model (each site's second derivatives w.r.t. the same site)."""
    names = list(model.input_spec)
    args = [inputs[n] for n in names]
    v = {n: {n: identity_seed(x)} for n, x in zip(names, args, strict=True)}
    res = model(*args, v=v, v2={})
    v2_out = res[-1]
    onames = list(model.output_spec)
    with torch.enable_grad():
        leaves = [x.data.detach().clone().requires_grad_(True) for x in args]
        outs = model(
            *[type(x)._wrap(d, x.sub_batch_ndim) for x, d in zip(args, leaves, strict=True)]
        )
        outs = outs if isinstance(outs, tuple) else (outs,)
        for on, y in zip(onames, outs, strict=True):
            nbo = y.data.dim() - y.BASE_NDIM
            yf = y.data.reshape((*y.data.shape[:nbo], -1))
            for c in range(yf.shape[-1]):
                g = torch.autograd.grad(
                    yf[..., c].sum(), leaves, create_graph=True, allow_unused=True
                )
                for ai, a in enumerate(names):
                    ga = g[ai]
                    na = math.prod(type(args[ai]).BASE_SHAPE)
                    gaf = (
                        None
                        if ga is None
                        else ga.reshape((*ga.shape[: ga.dim() - args[ai].BASE_NDIM], na))
                    )
                    for bi, b in enumerate(names):
                        nbb = math.prod(type(args[bi]).BASE_SHAPE)
                        want = torch.zeros(
                            *leaves[bi].shape[: leaves[bi].dim() - args[bi].BASE_NDIM],
                            na,
                            nbb,
                            dtype=leaves[bi].dtype,
                            device=leaves[bi].device,
                        )
                        if gaf is not None and gaf.requires_grad:
                            for k in range(na):
                                h = torch.autograd.grad(
                                    gaf[..., k].sum(),
                                    leaves[bi],
                                    retain_graph=True,
                                    allow_unused=True,
                                )[0]
                                if h is not None:
                                    want[..., k, :] = h.reshape(
                                        *h.shape[: h.dim() - args[bi].BASE_NDIM], nbb
                                    )
                        t = v2_out.get(on, {}).get(a, {}).get(b)
                        if t is None:
                            got = torch.zeros_like(want)
                        else:
                            d = t.data.expand(na, nbb, *t.data.shape[2:])
                            d = d.reshape(na, nbb, *d.shape[2 : d.dim() - y.BASE_NDIM], -1)[..., c]
                            got = d.movedim(0, -1).movedim(0, -1).expand_as(want)
                        torch.testing.assert_close(
                            got,
                            want.detach(),
                            rtol=1e-10,
                            atol=1e-12,
                            msg=_msg(f"d2 {on}[{c}] / d{a} d{b}: "),
                        )


def check_model(
    case: ModelCase, *, dtype: torch.dtype = torch.float64, device: torch.device | str = "cpu"
) -> None:
    """Run every applicable check of ``case`` (derivatives always in float64)."""
    model = load_case_model(case, dtype, device)
    inputs = make_inputs(model, case.inputs, dtype, device, case.sub_batch)
    check_values(case, model, inputs)
    if not case.derivatives or not model.input_spec:
        return
    m64 = model if dtype == torch.float64 else load_case_model(case, torch.float64, device)
    in64 = (
        inputs
        if dtype == torch.float64
        else make_inputs(m64, case.inputs, torch.float64, device, case.sub_batch)
    )
    check_jacobian(case, m64, in64)
    second = m64.SUPPORTS_SECOND_ORDER if case.second_order is None else case.second_order
    if second:
        check_second_order(case, m64, in64)
