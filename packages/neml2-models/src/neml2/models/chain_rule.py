r"""Forward-mode chain rule over typed tangents.

A tangent of a ``T`` variable is a ``T`` wrapper with leading seed (K) axes,
data ``(*K, *B, *S, *base)``. A leaf pushes incoming tangents through its local derivatives:

.. math::  \dot y^{(\ell)} = \sum_i \frac{\partial y}{\partial x_i}[\dot x_i^{(\ell)}]

for every seed leaf :math:`\ell`. Each *action* ``actions[x_i]`` maps an incoming tangent to its
contribution (a tangent of the output type), a :func:`product_term` (the product ``a * b``
left unevaluated, added to the sum by one fused multiply-add) or a tuple of those; an action
that only scales, :func:`scaled_by`, also distributes over a deferred sum (see
:mod:`neml2.models._deferred`, which decides when sums stay unevaluated). Second order:

.. math::  (g\circ f)''[a,b] = g''(f'a, f'b) + g'(f''[a,b]).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from neml2._native import sum_of_products
from neml2.models._deferred import (
    DeferredTangent,
    ProductTerm,
    deferring_allowed,
    linear_map,
    scale_contribution,
    scaled_by,
)
from neml2.models._typed import retag_sub
from neml2.tensors import TensorWrapper, addcmul, equalize_tangent_k, sum_products
from neml2.tensors.hooks import is_number as _is_number

__all__ = [
    "ChainRuleAction",
    "ChainRuleDict",
    "Contribution",
    "ProductTerm",
    "SecondOrderChainRuleAction",
    "SecondOrderChainRuleDict",
    "TangentAction",
    "accumulate",
    "apply_chain_rule",
    "apply_chain_rule_2",
    "deferred_sum",
    "linear_map",
    "product_term",
    "propagate_tangents",
    "scaled_by",
]

ChainRuleDict: TypeAlias = dict[str, dict[str, TensorWrapper]]
"""``{variable: {seed leaf: tangent}}``."""
SecondOrderChainRuleDict: TypeAlias = dict[str, dict[str, dict[str, TensorWrapper]]]
"""``{variable: {seed a: {seed b: tangent (N_a, N_b, ...)}}}``."""
ChainRuleAction: TypeAlias = Callable[..., "Contribution"]
"""Maps an input tangent to its contribution to an output tangent."""
SecondOrderChainRuleAction: TypeAlias = Callable[..., "Contribution"]
"""Maps a pair of input tangents ``(Va, Vb)`` to the ``g''`` contribution."""
TangentAction: TypeAlias = TensorWrapper
"""A tangent value (typed wrapper with leading K axes)."""

_EMPTY: dict[str, str] = {}


Contribution: TypeAlias = TensorWrapper | ProductTerm | tuple[TensorWrapper | ProductTerm, ...]
"""What an action returns: a tangent, a :func:`product_term`, or a tuple of those (summed)."""


def product_term(a: TensorWrapper | float, b: TensorWrapper) -> ProductTerm:
    """The contribution ``a * b`` of an action, left for :func:`accumulate` to fuse.

    Summed with the other contributions to the same seed leaf by ``acc + a * b`` in one pass
    (:func:`neml2.tensors.addcmul`): the product is never written out, which in eager mode
    saves a full write and read of a ``(K, *B, *base)`` temporary. The value is ``a * b``.
    """
    return ProductTerm(a, b)


def _evaluated(part: Any) -> Any:
    return part.evaluate() if isinstance(part, ProductTerm) else part


def _plain_sum(parts: list[Any]) -> Any:
    """Sum of evaluated contributions, equalizing K storage sizes first when they differ."""
    if len(parts) == 1:
        return parts[0]
    shapes = {p.data.shape[: p.k_ndim] for p in parts}
    if len(shapes) > 1:
        parts = list(equalize_tangent_k(parts))
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


DEFER_MIN_ELEMENTS = 1 << 15
"""Smallest tangent (elements of its largest operand) worth deferring: below it the extra small
products a deferred sum's consumers form cost more than the pass over the tangent they save."""


def _largest(parts: list[Any]) -> int:
    """Elements of the largest operand among ``parts``."""
    n = 0
    for p in parts:
        for w in (p.a, p.b) if isinstance(p, ProductTerm) else (p,):
            if isinstance(w, TensorWrapper):
                n = max(n, w.data.numel())
    return n


def _unit_product(part: Any) -> Any:
    """``b`` for the product term ``1 * b``, else None."""
    a = part.a if isinstance(part, ProductTerm) else None
    return part.b if _is_number(a) and a == 1 else None


def _deferred(parts: list[Any]) -> Any:
    """The sum of ``parts`` without evaluating it: a lone tangent itself, ``1 * b`` as ``b``,
    anything else a :class:`~neml2.models._deferred.DeferredTangent`."""
    if len(parts) == 1:
        p = parts[0]
        if not isinstance(p, ProductTerm):
            return p
        unit = _unit_product(p)
        if unit is not None:
            return unit
    return deferred_sum(parts)


def deferred_sum(parts: list[Any]) -> DeferredTangent:
    """``sum(parts)`` as a :class:`~neml2.models._deferred.DeferredTangent` (evaluated, when
    needed, by one :func:`accumulate` pass)."""
    return DeferredTangent(parts, _accumulate_now)


def accumulate(parts: list[Any]) -> Any:
    """Sum contributions to one seed leaf (tangents and :class:`ProductTerm` s): deferred while
    :func:`~neml2.models._deferred.deferring_allowed` when large enough
    (:data:`DEFER_MIN_ELEMENTS`; see :mod:`neml2.models._deferred`), else
    :func:`_accumulate_now`."""
    if deferring_allowed() and _largest(parts) >= DEFER_MIN_ELEMENTS:
        return _deferred(parts)
    return _accumulate_now(parts)


def _accumulate_now(parts: list[Any]) -> Any:
    """Sum contributions to one seed leaf (tangents and :class:`ProductTerm` s).

    With product terms, the whole sum is one pass of the native ``sum_of_products`` kernel
    when it applies (neml2-aoti installed, plain CPU eager tensors: :func:`neml2.tensors.
    sum_products`); otherwise product terms are added by fused multiply-adds into a sum this
    function owns (updated in place in plain eager mode). When any operand has paired K axes or
    sub-batch state, every term is evaluated and summed with K storage equalized first, as for
    plain tangents.
    """
    if len(parts) == 1:
        unit = _unit_product(parts[0])
        return _evaluated(parts[0]) if unit is None else unit
    terms = [p for p in parts if isinstance(p, ProductTerm)]
    if not terms:
        return _plain_sum(parts)
    operands = [w for t in terms for w in (t.a, t.b) if isinstance(w, TensorWrapper)]
    dense = [p for p in parts if not isinstance(p, ProductTerm)]
    if not all(
        isinstance(w, TensorWrapper) and w.aligns_by_broadcasting for w in (*operands, *dense)
    ):
        return _plain_sum([_evaluated(p) for p in parts])
    fused = sum_products(
        [*((None, d) for d in dense), *((t.a, t.b) for t in terms)], sum_of_products
    )
    if fused is not None:
        return fused
    if dense:
        total, owned = _plain_sum(dense), len(dense) > 1
    else:
        total, owned, terms = terms[0].evaluate(), True, terms[1:]
    for t in terms:
        total = addcmul(total, t.a, t.b, inplace=owned)
        owned = True
    return total


def _push(
    v: Mapping[str, Mapping[str, Any]],
    actions: Mapping[str, ChainRuleAction],
    renames: Mapping[str, str],
    sub_ndim: int | None,
    types: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    acc: dict[str, list[Any]] = {}
    for name, action in actions.items():
        key = renames.get(name, name)
        seeds = v.get(key)
        if not seeds:
            continue
        for leaf, tangent in seeds.items():
            if isinstance(tangent, DeferredTangent):
                _collect(acc.setdefault(leaf, []), tangent.apply(action), sub_ndim)
                continue
            if not isinstance(tangent, TensorWrapper) and types is not None and key in types:
                tangent = types[key](tangent)  # raw seed: wrapped, K left unmarked
            _collect(acc.setdefault(leaf, []), action(tangent), sub_ndim)
    return {leaf: accumulate(parts) for leaf, parts in acc.items() if parts}


def _collect(bucket: list[Any], result: Any, sub_ndim: int | None) -> None:
    """Append an action's contribution(s) to ``bucket``, retagged to ``sub_ndim`` if given."""
    for c in result if isinstance(result, tuple) else (result,):
        if sub_ndim is not None and c.sub_batch_ndim != sub_ndim:
            c = retag_sub(_evaluated(c), sub_ndim)
        bucket.append(c)


def apply_chain_rule(
    v: Mapping[str, Mapping[str, Any]],
    output_name: str,
    actions: Mapping[str, ChainRuleAction],
    *,
    output: TensorWrapper | None = None,
    renames: Mapping[str, str] | None = None,
    types: Mapping[str, Any] | None = None,
) -> ChainRuleDict:
    """Push first-order tangents ``v`` through ``actions`` into ``{output_name: {leaf: t}}``.

    Inputs absent from ``v`` contribute nothing; an output depending on no seeded input is absent
    from the result. Action keys and ``output_name`` may be option names (translated through
    ``renames``). With ``output`` given, contributions are retagged to its sub-batch rank. Raw
    tensor seeds are wrapped as ``types[input]`` (their K axes then act as leading batch axes).
    """
    r = renames or _EMPTY
    out = _push(v, actions, r, None if output is None else output.sub_batch_ndim, types)
    return {r.get(output_name, output_name): out} if out else {}


def _pair(va: Any, vb: Any) -> tuple[Any, Any]:
    """Give ``va`` K ``(N_a, 1)`` and ``vb`` K ``(1, N_b)`` so an action broadcasts to all pairs."""
    a = type(va)._wrap(
        va.data.unsqueeze(va.k_ndim),
        va.sub_batch_ndim,
        va.sub_batch_state,
        va.sub_batch_meta,
        va.k_ndim + 1,
        (*va.k_state, "broadcast"),
        (*va.k_pairing, None),
    )
    b = type(vb)._wrap(
        vb.data.unsqueeze(0),
        vb.sub_batch_ndim,
        vb.sub_batch_state,
        vb.sub_batch_meta,
        vb.k_ndim + 1,
        ("broadcast", *vb.k_state),
        (None, *vb.k_pairing),
    )
    return a, b


def _split_constant(t: Any) -> tuple[Any, Any]:
    """``(s, x)`` for a tangent ``s x`` deferred as a constant multiple, ``(None, value)``
    for another deferred tangent, ``(None, t)`` for a plain one."""
    if not isinstance(t, DeferredTangent):
        return None, t
    cm = t.constant_multiple
    return cm if cm is not None else (None, t.value())


def apply_chain_rule_2(
    v: Mapping[str, Mapping[str, Any]],
    v2: Mapping[str, Mapping[str, Mapping[str, Any]]] | None,
    output_name: str,
    actions_1: Mapping[str, ChainRuleAction],
    actions_2: Mapping[tuple[str, str], SecondOrderChainRuleAction] | None,
    vh: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    output: TensorWrapper | None = None,
    renames: Mapping[str, str] | None = None,
) -> SecondOrderChainRuleDict:
    """Second-order pushforward ``{output_name: {a: {b: t}}}`` with ``t`` of K ``(N_a, N_b)``.

    ``actions_2[(i, j)](Va, Vb)`` returns ``g''[Va, Vb]``; it receives ``v[i][a]`` with K
    ``(N_a, 1)`` and ``vh[j][b]`` (``vh`` defaults to ``v``) with K ``(1, N_b)``, so plain
    broadcasting wrapper arithmetic yields all pairs at once. ``actions_1`` is applied to ``v2``.
    """
    r = renames or _EMPTY
    sub = None if output is None else output.sub_batch_ndim
    w = v if vh is None else vh
    acc: dict[str, dict[str, list[Any]]] = {}

    def add(a: str, b: str, result: Any) -> None:
        _collect(acc.setdefault(a, {}).setdefault(b, []), result, sub)

    for (i, j), act in (actions_2 or {}).items():
        vi, wj = v.get(r.get(i, i)), w.get(r.get(j, j))
        if not vi or not wj:
            continue
        for a, ta in vi.items():
            sa, ta = _split_constant(ta)
            for b, tb in wj.items():
                sb, tb = _split_constant(tb)
                pa, pb = _pair(ta, tb)
                res = act(pa, pb)
                for s in (sa, sb):  # bilinear: constants of either argument scale the result
                    res = res if s is None else scale_contribution(res, s)
                add(a, b, res)
    if v2:
        for name, action in actions_1.items():
            seeds = v2.get(r.get(name, name))
            if not seeds:
                continue
            for a, inner in seeds.items():
                for b, t in inner.items():
                    add(a, b, t.apply(action) if isinstance(t, DeferredTangent) else action(t))
    out = {a: {b: accumulate(ps) for b, ps in inner.items() if ps} for a, inner in acc.items()}
    return {r.get(output_name, output_name): out} if out else {}


def propagate_tangents(
    v: Mapping[str, Mapping[str, Any]],
    output_name: str,
    actions_1: Mapping[str, ChainRuleAction],
    *,
    output: TensorWrapper | None = None,
    v2: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
    actions_2: Mapping[tuple[str, str], SecondOrderChainRuleAction] | None = None,
    vh: Mapping[str, Mapping[str, Any]] | None = None,
    renames: Mapping[str, str] | None = None,
    types: Mapping[str, Any] | None = None,
) -> tuple[Any, ...]:
    """``(v_out,)``, ``(v_out, v2_out)`` or ``(v_out, v2_out, vh_out)`` as requested."""
    v_out = apply_chain_rule(v, output_name, actions_1, output=output, renames=renames, types=types)
    if v2 is None and vh is None:
        return (v_out,)
    v2_out = apply_chain_rule_2(
        v, v2, output_name, actions_1, actions_2, vh, output=output, renames=renames
    )
    if vh is None:
        return (v_out, v2_out)
    vh_out = apply_chain_rule(vh, output_name, actions_1, output=output, renames=renames)
    return (v_out, v2_out, vh_out)
