r"""Re-trace an exported program one tensor component at a time ("scalarize") for AOTInductor.

A constitutive model's graph works on small per-point tensors: ``(B, 6)`` values, ``(B, 6, 6)``
and ``(19, B, 6)`` derivative blocks. Inductor lowers such a graph into dozens of loop nests over
6-wide axes, mostly scalar or with masked vectors, that pass ``(B, ...)`` intermediates through
memory. Scalarizing rewrites it so that every tensor component is a ``(B,)`` vector of its own:

* each value of the original graph becomes a :class:`numpy.ndarray` of objects with the value's
  shape, whose batch axis (if any) has length 1; an element is a ``(B,)`` tensor or, when it does
  not depend on the inputs, a Python number;
* structural ops (views, permutes, slices, ``cat``, ``expand``) rearrange the object array and
  emit no code; pointwise ops and reductions over component axes act element by element;
* Python-number elements fold: ``0 * x = 0``, ``1 * x = x``, ``x + 0 = x``, ... so the structural
  zeros and ones of identity blocks, unit weights and chain-rule seeds cost nothing. Parameters
  baked into the graph (not runtime inputs) fold as numbers too. (A structural zero times a
  non-finite component is 0, not NaN: a diverging point still shows in its residual.)

The result is one pointwise graph over ``(B,)`` vectors, which Inductor fuses into a single loop
over the batch with a straight-line, fully vectorized body (:data:`SCALARIZED_CONFIGS`). Outputs
are stored batch-innermost (``stride(0) == 1``): every store is a contiguous vector store.

Measured on the Chaboche ``_jacobian`` graph (19 unknowns; one thread, float64, AVX-512 host):
Inductor on the original graph 1.0-1.5 µs per point, on the scalarized graph 0.45-0.7 µs.

Graphs this cannot express (an op that mixes the batch axis with others, e.g. a batch reduction
or a reshape across it; an op not listed here; more than :data:`MAX_ELEMENT_OPS` element ops) are
left as they are: :func:`scalarize` raises :class:`Unsupported` with the reason and the caller
lowers the original program.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = [
    "MAX_ELEMENT_OPS",
    "SCALARIZED_BLOCK_BYTES",
    "SCALARIZED_CONFIGS",
    "SCALARIZED_ROW_MULTIPLE",
    "Unsupported",
    "scalarize",
    "scalarized_chunk_rows",
]

aten = torch.ops.aten

#: A graph whose scalarized form needs more element operations than this stays as it is (the
#: straight-line kernel and its compile time grow with it; Chaboche's ``_jacobian`` needs ~3000).
MAX_ELEMENT_OPS = 40_000

#: Inductor options for a scalarized graph: one kernel for the whole graph (no fusion-size cap),
#: vectorized even though its inputs are read with a stride (the tiling heuristic would give up
#: on so many strided loads), and 256-bit vectors where available (with 512-bit ones, twice as
#: many registers spill: Chaboche ``_jacobian`` at 4096 points 0.66 -> 0.46 µs per point).
SCALARIZED_CONFIGS: dict[str, Any] = {
    "max_fusion_size": 1_000_000,
    "cpp.enable_tiling_heuristics": False,
}


#: A scalarized CPU graph takes its rows in multiples of this: its batch axis is exported as
#: ``16 k``, so Inductor's vector loop over the batch needs no remainder loop, which would repeat
#: the whole straight-line body a second time (Chaboche ``_jacobian``: 6463 -> 3437 lines of C++,
#: lowering 80 -> 62 s on one core). The runtime pads a call's rows to the graph's
#: ``batch_rows`` (ARTIFACT.md §1, "Graph signature"). 16 rows are a whole number of the widest
#: vectors Inductor uses here, for float32 and float64 alike.
SCALARIZED_ROW_MULTIPLE = 16


#: Bytes of Newton matrices per call of a scalarized Newton graph (the segment's metadata
#: ``chunk_rows``, see :func:`scalarized_chunk_rows`). A block this small stays in a core's L2
#: cache from the graph call that writes it to the batched LU that reads it, and glibc reuses its
#: memory from the heap call after call instead of page-faulting it afresh. The graph's fixed
#: cost per call is small since its wrapper passes the Jacobian's component slices as raw
#: pointers (:mod:`neml2.aoti.compile._wrapper`). Chaboche step (19 unknowns, float64), one
#: thread, AVX2 path, median of 60 / 15 / 4 calls:
#:
#: ========  =========  ==========  ===========
#: rows      10^3       10^4        10^5
#: ========  =========  ==========  ===========
#: 256       9.9 ms     107-113 ms  1.30 s
#: 512       (2 x 500)  106 ms      -
#: 1024      (whole)    99-110 ms   1.05 s
#: 32768     12.3-13 ms 152-160 ms  1.44 s
#: ========  =========  ==========  ===========
#:
#: The whole-batch calls page-fault their freed matrices back in (1400 faults a call at 10^3).
SCALARIZED_BLOCK_BYTES = 768 * 1024


def scalarized_chunk_rows(n_unknowns: int) -> int:
    """Rows per call of a scalarized Newton graph of ``n_unknowns`` unknowns: as many as keep the
    block's ``(rows, n, n)`` float64 Jacobian within :data:`SCALARIZED_BLOCK_BYTES`, rounded
    down to a multiple of :data:`SCALARIZED_ROW_MULTIPLE`, at least twice that multiple (the fewest
    rows a scalarized CPU graph takes), so that only a batch's last block is padded (Chaboche:
    272). Sized for float64 whatever the leaf's dtype: the metadata is shared by every (device,
    dtype) leaf of an artifact, so a float32 leaf runs the same rows in blocks half as large."""
    m = SCALARIZED_ROW_MULTIPLE
    rows = SCALARIZED_BLOCK_BYTES // max(1, n_unknowns * n_unknowns * 8)
    return max(2 * m, rows // m * m)


class Unsupported(Exception):
    """The graph uses something the per-component form cannot express."""


Element = Any  # a (B,) or 0-d tensor, or a Python bool / int / float


def _is_number(x: Element) -> bool:
    return isinstance(x, (bool, int, float))


# ---- element algebra with folding of Python-number operands ---------------------------------


def _mul(a: Element, b: Element) -> Element:
    for x, y in ((a, b), (b, a)):
        if _is_number(x) and not _is_number(y) and y.is_floating_point():
            if x == 0:
                return 0.0
            if x == 1:
                return y
            if x == -1:
                return -y
    return a * b


def _add(a: Element, b: Element) -> Element:
    if _is_number(a) and not _is_number(b) and a == 0:
        return b
    if _is_number(b) and not _is_number(a) and b == 0:
        return a
    return a + b


def _sub(a: Element, b: Element) -> Element:
    if _is_number(b) and not _is_number(a) and b == 0:
        return a
    if _is_number(a) and not _is_number(b) and a == 0:
        return -b
    return a - b


def _div(a: Element, b: Element) -> Element:
    if _is_number(a) and _is_number(b):
        return _number_div(float(a), float(b))
    if _is_number(b) and b == 1:
        return a
    return a / b


def _number_div(a: float, b: float) -> float:
    if b != 0:
        return a / b
    return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)


def _pow(a: Element, b: Element) -> Element:
    if _is_number(a) and _is_number(b):
        try:
            return math.pow(a, b)
        except OverflowError:
            return math.inf
        except ValueError:  # 0 ** negative, negative ** fractional: torch's values
            return math.inf if a == 0 else math.nan
    if _is_number(b) and b == 1:
        return a
    return torch.pow(a, b)


def _unary(
    on_tensor: Callable[[torch.Tensor], torch.Tensor], on_number: Callable[[float], float]
) -> Callable[[Element], Element]:
    def f(a: Element) -> Element:
        return on_number(a) if _is_number(a) else on_tensor(a)

    return f


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else math.nan


def _extremum(a: Element, b: Element, larger: bool) -> Element:
    """``maximum(a, b)`` (``larger``) or ``minimum(a, b)``, NaN-propagating like torch."""
    if _is_number(a) and _is_number(b):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        return max(a, b) if larger else min(a, b)
    if _is_number(a):
        a, b = b, a
    if _is_number(b):
        return torch.clamp_min(a, b) if larger else torch.clamp_max(a, b)
    return torch.maximum(a, b) if larger else torch.minimum(a, b)


def _max(a: Element, b: Element) -> Element:
    return _extremum(a, b, larger=True)


def _min(a: Element, b: Element) -> Element:
    return _extremum(a, b, larger=False)


def _where_as(dtype: torch.dtype) -> Callable[[Element, Element, Element], Element]:
    """``where(c, a, b)`` element by element, a result of ``dtype`` when ``c`` is a tensor."""

    def where(c: Element, a: Element, b: Element) -> Element:
        if _is_number(c):
            return a if c else b
        if _is_number(a) and _is_number(b):
            if a == b:
                return a
            a = torch.full_like(c, a, dtype=dtype)
        return torch.where(c, a, b)

    return where


def _logical(a: Element, b: Element, op: Callable[..., torch.Tensor], absorbing: bool) -> Element:
    """``and`` (absorbing ``False``) / ``or`` (absorbing ``True``) of two truth values."""
    if _is_number(a) and _is_number(b):
        return bool(a) or bool(b) if absorbing else bool(a) and bool(b)
    if _is_number(b):
        a, b = b, a
    if _is_number(a):
        return absorbing if bool(a) == absorbing else b != 0
    return op(a, b)


def _sign(x: float) -> float:
    return math.nan if math.isnan(x) else float((x > 0) - (x < 0))


_BINARY: dict[Any, Callable[[Element, Element], Element]] = {
    aten.mul.Tensor: _mul,
    aten.mul.Scalar: _mul,
    aten.add.Tensor: _add,
    aten.add.Scalar: _add,
    aten.sub.Tensor: _sub,
    aten.sub.Scalar: _sub,
    aten.rsub.Scalar: lambda a, b: _sub(b, a),
    aten.div.Tensor: _div,
    aten.div.Scalar: _div,
    aten.pow.Tensor_Tensor: _pow,
    aten.pow.Tensor_Scalar: _pow,
    aten.pow.Scalar: _pow,
    aten.maximum.default: _max,
    aten.minimum.default: _min,
    aten.lt.Tensor: lambda a, b: a < b,
    aten.lt.Scalar: lambda a, b: a < b,
    aten.le.Tensor: lambda a, b: a <= b,
    aten.le.Scalar: lambda a, b: a <= b,
    aten.gt.Tensor: lambda a, b: a > b,
    aten.gt.Scalar: lambda a, b: a > b,
    aten.ge.Tensor: lambda a, b: a >= b,
    aten.ge.Scalar: lambda a, b: a >= b,
    aten.eq.Tensor: lambda a, b: a == b,
    aten.eq.Scalar: lambda a, b: a == b,
    aten.ne.Tensor: lambda a, b: a != b,
    aten.ne.Scalar: lambda a, b: a != b,
    aten.logical_and.default: lambda a, b: _logical(a, b, torch.logical_and, absorbing=False),
    aten.logical_or.default: lambda a, b: _logical(a, b, torch.logical_or, absorbing=True),
}

_UNARY: dict[Any, Callable[[Element], Element]] = {
    aten.neg.default: lambda a: -a,
    aten.exp.default: _unary(torch.exp, _exp),
    aten.log.default: _unary(torch.log, _log),
    aten.sqrt.default: _unary(torch.sqrt, _sqrt),
    aten.rsqrt.default: _unary(torch.rsqrt, lambda x: _number_div(1.0, _sqrt(x))),
    aten.reciprocal.default: _unary(torch.reciprocal, lambda x: _number_div(1.0, x)),
    aten.abs.default: _unary(torch.abs, abs),
    aten.sign.default: _unary(torch.sign, _sign),
    aten.tanh.default: _unary(torch.tanh, math.tanh),
    aten.sin.default: _unary(torch.sin, math.sin),
    aten.cos.default: _unary(torch.cos, math.cos),
    aten.logical_not.default: _unary(torch.logical_not, lambda x: not x),
}


class _Value:
    """A tensor of the original graph: its components as an object array of the tensor's shape,
    the batch axis (``batch``, None when the tensor has none) kept with length 1."""

    __slots__ = ("batch", "items")

    def __init__(self, items: np.ndarray, batch: int | None) -> None:
        self.items = items
        self.batch = batch


def _items(x: Any) -> np.ndarray:
    """``x`` as an object array (a single element becomes a 0-d array)."""
    if isinstance(x, np.ndarray):
        return x
    a = np.empty((), dtype=object)
    a[()] = x
    return a


def _value(x: Any) -> _Value:
    """A graph argument as a :class:`_Value` (a Python number is a 0-d, batch-less one)."""
    if isinstance(x, _Value):
        return x
    if isinstance(x, (bool, int, float)):
        return _Value(_items(x), None)
    raise Unsupported(f"argument of type {type(x).__name__}")


def _batch_symbol(ep: torch.export.ExportedProgram) -> Any:
    """The symbolic batch size: axis 0 of the first runtime input (a dynamic export)."""
    first = next(
        n
        for n in ep.graph.nodes
        if n.op == "placeholder" and n.name in ep.graph_signature.user_inputs
    )
    size = first.meta["val"].shape[0]
    if not isinstance(size, torch.SymInt) or size.node.is_constant():
        raise Unsupported("the program has a static batch size")
    return size.node.expr


def _batch_axis(meta: Any, batch: Any) -> int | None:
    """The axis whose size is the symbolic batch size ``batch`` (None: no such axis)."""
    axes = []
    for i, n in enumerate(getattr(meta, "shape", ())):
        if isinstance(n, torch.SymInt) and not n.node.is_constant():
            if n.node.expr != batch:
                raise Unsupported(
                    f"an axis of size {n.node.expr}: the batch axis folded into others"
                )
            axes.append(i)
    if len(axes) > 1:
        raise Unsupported(f"more than one batch axis in {tuple(meta.shape)}")
    return axes[0] if axes else None


def _layout(meta: Any, batch_symbol: Any) -> tuple[tuple[int, ...], int | None]:
    """(shape with the batch axis as 1, batch axis) of a node's value."""
    batch = _batch_axis(meta, batch_symbol)
    shape = tuple(1 if i == batch else int(n) for i, n in enumerate(meta.shape))
    return shape, batch


def _numbers(t: torch.Tensor) -> np.ndarray:
    """A concrete tensor's entries as an object array of Python numbers."""
    flat = t.detach().to("cpu").reshape(-1).tolist()
    a = np.empty(len(flat), dtype=object)
    a[:] = flat
    return a.reshape(tuple(t.shape))


def _left_padded(v: _Value, rank: int) -> np.ndarray:
    a = v.items
    return a.reshape((1,) * (rank - a.ndim) + a.shape)


def _map(
    fn: Callable[..., Element], values: Sequence[_Value], shape: tuple[int, ...]
) -> np.ndarray:
    """``fn`` element by element over broadcast ``values`` (result of shape ``shape``)."""
    args = [np.broadcast_to(_left_padded(v, len(shape)), shape) for v in values]
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = fn(*(a[idx] for a in args))
    return out


class _Interpreter:
    """Evaluates an exported graph on :class:`_Value` s."""

    def __init__(self, graph: torch.fx.Graph, batch_symbol: Any) -> None:
        self.graph = graph
        self.batch_symbol = batch_symbol
        self.element_ops = 0

    def run(self, bound: dict[str, _Value]) -> list[_Value]:
        env: dict[torch.fx.Node, Any] = {}
        for node in self.graph.nodes:
            if node.op == "placeholder":
                env[node] = bound[node.name]
            elif node.op == "call_function":
                env[node] = self._call(node, env)
            elif node.op == "output":
                return [env[a] for a in node.args[0]]
            else:
                raise Unsupported(f"graph node of kind {node.op}")
        raise Unsupported("graph without output")

    def _count(self, n: int) -> None:
        self.element_ops += n
        if self.element_ops > MAX_ELEMENT_OPS:
            raise Unsupported(f"more than {MAX_ELEMENT_OPS} element operations")

    def _call(self, node: torch.fx.Node, env: dict[torch.fx.Node, Any]) -> Any:
        def resolve(x: Any) -> Any:
            if isinstance(x, torch.fx.Node):
                return env[x]
            if isinstance(x, (list, tuple)):
                return type(x)(resolve(y) for y in x)
            return x

        target = node.target
        args, kwargs = resolve(node.args), resolve(node.kwargs)
        if target is aten.sym_size.int:
            return _BATCH
        if target is aten._assert_tensor_metadata.default:
            return None
        meta = node.meta.get("val")
        if not isinstance(meta, torch.Tensor):
            raise Unsupported(f"{target} does not produce a tensor")
        shape, batch = _layout(meta, self.batch_symbol)
        handler = _STRUCTURAL.get(target)
        if handler is not None:
            return _Value(handler(args, kwargs, shape, batch).reshape(shape), batch)
        self._count(int(np.prod(shape)))
        if target in _BINARY:
            if len(args) > 2 or "alpha" in kwargs:
                raise Unsupported(f"{target} with alpha")
            fn = _BINARY[target]
            return _Value(_map(fn, [_value(args[0]), _value(args[1])], shape), batch)
        if target in _UNARY:
            return _Value(_map(_UNARY[target], [_value(args[0])], shape), batch)
        if target is aten.addcmul.default:
            value = kwargs.get("value", args[3] if len(args) > 3 else 1)

            def addcmul(s: Element, a: Element, b: Element) -> Element:
                return _add(s, _mul(_mul(a, b), value))

            return _Value(_map(addcmul, [_value(a) for a in args[:3]], shape), batch)
        if target in (
            aten.where.self,
            aten.where.ScalarSelf,
            aten.where.ScalarOther,
            aten.where.Scalar,
        ):
            where = _where_as(meta.dtype)
            return _Value(_map(where, [_value(a) for a in args[:3]], shape), batch)
        if target is aten.clamp.default:
            lo = args[1] if len(args) > 1 else kwargs.get("min")
            hi = args[2] if len(args) > 2 else kwargs.get("max")

            def clamp(x: Element) -> Element:
                x = x if lo is None else _max(x, lo)
                return x if hi is None else _min(x, hi)

            return _Value(_map(clamp, [_value(args[0])], shape), batch)
        if target in (aten.sum.dim_IntList, aten.mean.dim):
            return _Value(_reduce(args, kwargs, target is aten.mean.dim).reshape(shape), batch)
        if target is aten.to.dtype or target is aten._to_copy.default:
            dtype = args[1] if len(args) > 1 else kwargs.get("dtype", meta.dtype)
            return _Value(_map(lambda x: _cast(x, dtype), [_value(args[0])], shape), batch)
        raise Unsupported(f"op {target}")


class _Batch:
    """The graph's symbolic batch size (the value of ``sym_size``)."""


_BATCH = _Batch()


def _cast(x: Element, dtype: torch.dtype) -> Element:
    if not _is_number(x):
        return x.to(dtype)
    if dtype.is_floating_point:
        return float(x)
    return bool(x) if dtype == torch.bool else int(x)


def _reduce(args: Sequence[Any], kwargs: dict[str, Any], mean: bool) -> np.ndarray:
    """``sum`` / ``mean`` over component axes (summed left to right)."""
    x: _Value = args[0]
    dims = args[1] if len(args) > 1 else kwargs.get("dim")
    if not dims:
        raise Unsupported("reduction over every axis")
    dims = sorted({d % x.items.ndim for d in dims})
    if x.batch is not None and x.batch in dims:
        raise Unsupported("reduction over the batch axis")
    kept = [d for d in range(x.items.ndim) if d not in dims]
    moved = np.transpose(x.items, kept + dims)
    rest = moved.shape[: len(kept)]
    flat = moved.reshape((*rest, -1))
    count = flat.shape[-1]
    out = np.empty(rest, dtype=object)
    for idx in np.ndindex(*rest):
        acc: Element = flat[(*idx, 0)] if count else 0.0
        for k in range(1, count):
            acc = _add(acc, flat[(*idx, k)])
        out[idx] = _div(acc, float(count)) if mean else acc
    return out


def _reshape(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    x: _Value = args[0]
    if x.batch is not None:
        if batch is None:
            raise Unsupported("reshape folds the batch axis into others")
        before_in = int(np.prod(x.items.shape[: x.batch]))
        before_out = int(np.prod(shape[:batch]))
        if before_in != before_out:
            raise Unsupported("reshape moves components across the batch axis")
    return x.items.reshape(shape)


def _expand(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    x: _Value = args[0]
    return np.broadcast_to(_left_padded(x, len(shape)), shape).copy()


def _moved(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    return np.moveaxis(args[0].items, args[1], args[2])


def _permuted(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    return np.transpose(args[0].items, [d % args[0].items.ndim for d in args[1]])


def _transposed(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    return np.swapaxes(args[0].items, args[1], args[2])


def _full_range(start: Any, end: Any, step: Any) -> bool:
    """True for the slice ``start:end:step`` that keeps a whole batch axis."""
    return (
        start in (None, 0)
        and step in (None, 1)
        and (end is None or end is _BATCH or (isinstance(end, int) and end >= 2**31 - 2))
    )


def _sliced(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    x: _Value = args[0]
    dim = (args[1] if len(args) > 1 else 0) % x.items.ndim
    start, end, step = ([*list(args[2:5]), None, None, None])[:3]
    if dim == x.batch:
        if not _full_range(start, end, step):
            raise Unsupported("slice of the batch axis")
        return x.items
    index = [slice(None)] * x.items.ndim
    index[dim] = slice(start, end, step)
    return x.items[tuple(index)]


def _selected(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    x: _Value = args[0]
    dim = args[1] % x.items.ndim
    if dim == x.batch:
        raise Unsupported("select along the batch axis")
    return np.asarray(np.take(x.items, args[2], axis=dim), dtype=object)


def _joined(
    args: Sequence[Any],
    kwargs: dict[str, Any],
    shape: tuple[int, ...],
    batch: int | None,
    stack: bool,
) -> np.ndarray:
    parts: list[_Value] = [_value(p) for p in args[0]]
    dim = (args[1] if len(args) > 1 else kwargs.get("dim", 0)) % len(shape)
    if dim == batch:
        raise Unsupported("cat / stack along the batch axis")
    rank = len(shape) - (1 if stack else 0)
    arrays = [_left_padded(p, rank) for p in parts]
    if stack:
        return np.stack(np.broadcast_arrays(*arrays), axis=dim)
    target = [max(a.shape[d] for a in arrays) if d != dim else -1 for d in range(rank)]
    arrays = [
        np.broadcast_to(a, tuple(a.shape[d] if d == dim else target[d] for d in range(rank)))
        for a in arrays
    ]
    return np.concatenate(arrays, axis=dim)


Handler = Callable[[Sequence[Any], dict[str, Any], tuple[int, ...], int | None], np.ndarray]


def _constant(fill: Callable[[tuple[int, ...]], np.ndarray]) -> Handler:
    def make(
        args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
    ) -> np.ndarray:
        return fill(shape)

    return make


def _filled(value: float) -> Callable[[tuple[int, ...]], np.ndarray]:
    def fill(shape: tuple[int, ...]) -> np.ndarray:
        a = np.empty(shape, dtype=object)
        a.fill(value)
        return a

    return fill


def _eye(shape: tuple[int, ...]) -> np.ndarray:
    a = _filled(0.0)(shape)
    for i in range(min(shape)):
        a[i, i] = 1.0
    return a


def _arange(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    numbers = [a for a in args if isinstance(a, (int, float))]
    start, _end, step = (0, numbers[0], 1) if len(numbers) == 1 else ([*list(numbers), 1])[:3]
    a = np.empty(shape, dtype=object)
    a[:] = [start + k * step for k in range(shape[0])]
    return a


def _full(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    value = (
        args[-1] if args and isinstance(args[-1], (bool, int, float)) else kwargs.get("fill_value")
    )
    if not isinstance(value, (bool, int, float)):
        raise Unsupported("full with a tensor fill value")
    return _filled(value)(shape)


def _same(
    args: Sequence[Any], kwargs: dict[str, Any], shape: tuple[int, ...], batch: int | None
) -> np.ndarray:
    x: _Value = args[0]
    return x.items


_STRUCTURAL: dict[Any, Handler] = {
    aten.alias.default: _same,
    aten.clone.default: _same,
    aten.detach.default: _same,
    aten.detach_.default: _same,
    aten.lift_fresh_copy.default: _same,
    aten.contiguous.default: _same,
    aten.reshape.default: _reshape,
    aten.view.default: _reshape,
    aten._unsafe_view.default: _reshape,
    aten.unsqueeze.default: _reshape,
    aten.squeeze.dim: _reshape,
    aten.squeeze.dims: _reshape,
    aten.expand.default: _expand,
    aten.movedim.int: _moved,
    aten.permute.default: _permuted,
    aten.transpose.int: _transposed,
    aten.slice.Tensor: _sliced,
    aten.select.int: _selected,
    aten.cat.default: partial(_joined, stack=False),
    aten.stack.default: partial(_joined, stack=True),
    aten.eye.default: _constant(_eye),
    aten.ones.default: _constant(_filled(1.0)),
    aten.zeros.default: _constant(_filled(0.0)),
    aten.new_ones.default: _constant(_filled(1.0)),
    aten.new_zeros.default: _constant(_filled(0.0)),
    aten.zeros_like.default: _constant(_filled(0.0)),
    aten.ones_like.default: _constant(_filled(1.0)),
    aten.full.default: _full,
    aten.new_full.default: _full,
    aten.full_like.default: _full,
    aten.arange.default: _arange,
    aten.arange.start: _arange,
    aten.arange.start_step: _arange,
}


def _split(x: torch.Tensor, batch: int | None) -> np.ndarray:
    """A runtime input as an object array of its ``(B,)`` components (batch axis kept, length 1)."""
    if batch is None:
        raise Unsupported("an input without a batch axis")
    moved = x.movedim(batch, -1)
    base = tuple(moved.shape[:-1])
    items = np.empty(base, dtype=object)
    for idx in np.ndindex(*base):
        items[idx] = moved[idx]  # selects only: a reshape would make export guard on B != 1
    return np.expand_dims(items, batch)


def _assemble(v: _Value, meta: torch.Tensor, B: Any) -> torch.Tensor:
    """An output from its components, stored batch-innermost: shape ``meta.shape``, the batch
    axis (axis 0 by the graph contract) with stride 1."""
    if v.batch != 0:
        raise Unsupported("an output without the batch on axis 0")
    base = v.items.shape[1:]
    columns = []
    for e in v.items.reshape(-1):
        if _is_number(e):
            e = torch.full((B,), e, dtype=meta.dtype, device=meta.device)
        elif e.dim() == 0:
            e = e.expand(B)
        columns.append(e if e.dtype == meta.dtype else e.to(meta.dtype))
    if not columns:
        return torch.empty((B, *base), dtype=meta.dtype, device=meta.device)
    return torch.stack(columns, 0).reshape((*base, B)).movedim(-1, 0)


class _Scalarized(nn.Module):
    """The program ``ep`` evaluated component by component (same arguments, same outputs)."""

    def __init__(self, ep: torch.export.ExportedProgram) -> None:
        super().__init__()
        sig = ep.graph_signature
        self.graph = ep.graph
        self.user_inputs = list(sig.user_inputs)
        self.batch_symbol = _batch_symbol(ep)
        self.input_batch = {
            n.name: _batch_axis(n.meta.get("val"), self.batch_symbol)
            for n in ep.graph.nodes
            if n.op == "placeholder" and n.name in self.user_inputs
        }
        self.output_meta = [
            a.meta["val"] for a in next(n for n in ep.graph.nodes if n.op == "output").args[0]
        ]
        if sig.buffers_to_mutate or sig.user_inputs_to_mutate:
            raise Unsupported("the program mutates a buffer or an input")
        baked = {
            **sig.inputs_to_parameters,
            **sig.inputs_to_buffers,
            **sig.inputs_to_lifted_tensor_constants,
        }
        self.constants: dict[str, np.ndarray] = {}
        for ph, fqn in baked.items():
            # parameters and persistent buffers are in the state dict; non-persistent buffers
            # and lifted constants among the constants
            c = ep.state_dict.get(fqn, ep.constants.get(fqn))
            if not isinstance(c, torch.Tensor):
                raise Unsupported(f"constant {fqn} of type {type(c).__name__}")
            self.constants[ph] = _numbers(c)

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        bound = {ph: _Value(items.copy(), None) for ph, items in self.constants.items()}
        for name, x in zip(self.user_inputs, args, strict=True):
            bound[name] = _Value(_split(x, self.input_batch[name]), self.input_batch[name])
        outputs = _Interpreter(self.graph, self.batch_symbol).run(bound)
        B = args[0].shape[0]
        return tuple(_assemble(v, m, B) for v, m in zip(outputs, self.output_meta, strict=True))


def _agree(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> bool:
    for x, y in zip(a, b, strict=True):
        tol = 1e-10 if x.dtype == torch.float64 else 1e-4
        if x.shape != y.shape or not torch.allclose(x, y, rtol=tol, atol=tol, equal_nan=True):
            return False
    return True


def _rows(x: torch.Tensor, n: int) -> torch.Tensor:
    """``x`` with its rows repeated to ``n`` rows."""
    reps = -(-n // x.shape[0])
    return x.repeat(reps, *([1] * (x.dim() - 1)))[:n]


def scalarize(
    ep: torch.export.ExportedProgram, example: Sequence[torch.Tensor]
) -> tuple[torch.export.ExportedProgram, int]:
    """``(program, min_batch)``: ``ep`` re-exported component by component (dynamic batch on
    axis 0 of every argument, on CPU in multiples of :data:`SCALARIZED_ROW_MULTIPLE`), checked to
    give ``ep``'s outputs on ``example`` (its rows repeated to two such multiples on CPU).

    Raises :class:`Unsupported` (with the reason) when the graph cannot be expressed that way,
    its export fails or its outputs differ.
    """
    from neml2.aoti.compile._lower import export_graph

    multiple = SCALARIZED_ROW_MULTIPLE if example and example[0].device.type == "cpu" else 1
    if multiple > 1:
        example = [_rows(x, 2 * multiple) for x in example]
    module = _Scalarized(ep)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = ep.module()(*example)
        try:  # an element op torch rejects (e.g. a dtype it cannot mix) leaves the graph as is
            components = module(*example)
        except Unsupported:
            raise
        except Exception as e:
            raise Unsupported(f"component-wise evaluation failed: {type(e).__name__}: {e}") from e
        if not _agree(reference, components):
            raise Unsupported("the component-wise evaluation differs from the program")
        try:
            out, min_batch = export_graph(module, example, dynamic=True, row_multiple=multiple)
        except Exception as e:
            raise Unsupported(f"export failed: {type(e).__name__}: {e}") from e
        if not _agree(reference, out.module()(*example)):
            raise Unsupported("the exported component-wise program differs from the original")
    return out, min_batch
