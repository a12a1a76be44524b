r"""Scalar-valued maps of Scalar variables with automatic first and second derivatives.

:class:`HyperDual` carries a value :math:`y`, its gradient :math:`\partial y/\partial x_i` and
(optionally) its Hessian :math:`\partial^2 y/\partial x_i\partial x_j` with respect to named
Scalar variables; arithmetic and elementary functions propagate them exactly
(:math:`(\varphi\circ a)'' = \varphi'(a)\,a'' + \varphi''(a)\,a'\otimes a'`).
:class:`ScalarMap` is a leaf base class: a subclass declares Scalar inputs/parameters and
implements :meth:`ScalarMap.evaluate`; the base class builds the chain-rule actions (first and
second order, including promoted parameters) from the hyper-dual result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from neml2.models._store import _attr
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.tensors import Scalar, cosh, exp, log, pow, sinh, sqrt, tanh, where

__all__ = [
    "HyperDual",
    "ScalarMap",
    "hd_cosh",
    "hd_exp",
    "hd_log",
    "hd_pow",
    "hd_sqrt",
    "hd_tanh",
    "hd_where",
]

Pair = tuple[str, str]


class HyperDual:
    """Value with gradient ``g`` (name → Scalar) and Hessian ``h`` ((i, j) → Scalar) or None."""

    __slots__ = ("g", "h", "v")

    def __init__(self, v: Any, g: dict[str, Any] | None = None, h: dict[Pair, Any] | None = None):
        self.v = v
        self.g = g if g is not None else {}
        self.h = h

    @staticmethod
    def lift(x: Any, second: bool) -> HyperDual:
        """``x`` as a constant hyper-dual number (no derivatives)."""
        return x if isinstance(x, HyperDual) else HyperDual(x, {}, {} if second else None)

    @staticmethod
    def variable(x: Any, name: str, second: bool) -> HyperDual:
        """Independent variable ``name`` with value ``x``."""
        one = Scalar(torch.ones((), dtype=x.data.dtype, device=x.data.device))
        return HyperDual(x, {name: one}, {} if second else None)

    def _second(self) -> bool:
        return self.h is not None

    def __add__(self, o: Any) -> HyperDual:
        o = self.lift(o, self._second())
        g = _sum(self.g, o.g)
        h = None if self.h is None or o.h is None else _sum(self.h, o.h)
        return HyperDual(self.v + o.v, g, h)

    __radd__ = __add__

    def __neg__(self) -> HyperDual:
        h = None if self.h is None else {k: -x for k, x in self.h.items()}
        return HyperDual(-self.v, {k: -x for k, x in self.g.items()}, h)

    def __sub__(self, o: Any) -> HyperDual:
        return self + (-self.lift(o, self._second()))

    def __rsub__(self, o: Any) -> HyperDual:
        return self.lift(o, self._second()) + (-self)

    def __mul__(self, o: Any) -> HyperDual:
        o = self.lift(o, self._second())
        a, b = self, o
        g = _sum(_scale(a.g, b.v), _scale(b.g, a.v))
        h = None
        if a.h is not None and b.h is not None:
            h = _sum(_scale(a.h, b.v), _scale(b.h, a.v))
            for i, gi in a.g.items():
                for j, gj in b.g.items():
                    t = gi * gj
                    _acc(h, (i, j), t)
                    _acc(h, (j, i), t)
        return HyperDual(a.v * b.v, g, h)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> HyperDual:
        if isinstance(o, HyperDual):
            return self * o.apply(lambda x: 1.0 / x, lambda x: -1.0 / (x * x),
                                  lambda x: 2.0 / (x * x * x))  # fmt: skip
        return self.__mul__(1.0 / o)

    def __rtruediv__(self, o: Any) -> HyperDual:
        return self.lift(o, self._second()) / self

    def apply(self, f: Callable[[Any], Any], df: Callable[[Any], Any],
              d2f: Callable[[Any], Any] | None) -> HyperDual:  # fmt: skip
        """``f(self)`` given ``f'`` and ``f''`` (``d2f`` only used for second order)."""
        d1 = df(self.v)
        g = _scale(self.g, d1)
        h = None
        if self.h is not None:
            h = _scale(self.h, d1)
            if d2f is not None and self.g:
                d2 = d2f(self.v)
                for i, gi in self.g.items():
                    for j, gj in self.g.items():
                        _acc(h, (i, j), d2 * gi * gj)
        return HyperDual(f(self.v), g, h)

    def sqrt(self) -> HyperDual:
        """:math:`\\sqrt a`."""
        return hd_sqrt(self)

    def square(self) -> HyperDual:
        """:math:`a^2`."""
        return self * self


def hd_exp(a: HyperDual) -> HyperDual:
    """:math:`e^a`."""
    return a.apply(exp, exp, exp)


def hd_log(a: HyperDual) -> HyperDual:
    """:math:`\\ln a`."""
    return a.apply(log, lambda x: 1.0 / x, lambda x: -1.0 / (x * x))


def hd_cosh(a: HyperDual) -> HyperDual:
    """:math:`\\cosh a`."""
    return a.apply(cosh, sinh, cosh)


def hd_tanh(a: HyperDual) -> HyperDual:
    """:math:`\\tanh a`."""

    def d1(x: Any) -> Any:
        t = tanh(x)
        return 1.0 - t * t

    def d2(x: Any) -> Any:
        t = tanh(x)
        return -2.0 * t * (1.0 - t * t)

    return a.apply(tanh, d1, d2)


def hd_sqrt(a: HyperDual) -> HyperDual:
    """:math:`\\sqrt a`."""
    return a.apply(sqrt, lambda x: 0.5 / sqrt(x), lambda x: -0.25 / (x * sqrt(x)))


def hd_pow(a: HyperDual, n: HyperDual | float) -> HyperDual:
    r""":math:`P = a^n`, evaluated with ``pow`` (values and edge cases such as :math:`0^n`, or a
    negative base with an integral exponent, equal the direct formula):
    :math:`P_a = n a^{n-1}`, :math:`P_n = P \ln a`, :math:`P_{aa} = n(n-1) a^{n-2}`,
    :math:`P_{an} = a^{n-1}(1 + n \ln a)`, :math:`P_{nn} = P \ln^2 a` (the :math:`\ln a` terms
    only when the exponent carries derivatives)."""
    second = a.h is not None
    nn = HyperDual.lift(n, second)
    nv = nn.v
    y = pow(a.v, nv)
    if not a.g and not nn.g:
        return HyperDual(y, {}, {} if second else None)
    am1 = pow(a.v, nv - 1.0)
    pa = nv * am1
    g = _scale(a.g, pa)
    la = log(a.v) if nn.g else None
    if la is not None:
        g = _sum(g, _scale(nn.g, y * la))
    if not second:
        return HyperDual(y, g, None)
    h = _scale(a.h or {}, pa)
    if la is not None:
        h = _sum(h, _scale(nn.h or {}, y * la))
    paa = nv * (nv - 1.0) * pow(a.v, nv - 2.0)
    for i, gi in a.g.items():
        for j, gj in a.g.items():
            _acc(h, (i, j), paa * gi * gj)
    if la is not None:
        pan = am1 * (1.0 + nv * la)
        pnn = y * la * la
        for i, gi in a.g.items():
            for j, gj in nn.g.items():
                t = pan * gi * gj
                _acc(h, (i, j), t)
                _acc(h, (j, i), t)
        for i, gi in nn.g.items():
            for j, gj in nn.g.items():
                _acc(h, (i, j), pnn * gi * gj)
    return HyperDual(y, g, h)


def hd_where(cond: Any, a: HyperDual, b: HyperDual) -> HyperDual:
    """Elementwise ``a if cond else b`` of value, gradient and (when both have one) Hessian."""

    def pick(x: dict[Any, Any], y: dict[Any, Any]) -> dict[Any, Any]:
        return {k: where(cond, x.get(k, 0.0), y.get(k, 0.0)) for k in {**x, **y}}

    h = None if a.h is None or b.h is None else pick(a.h, b.h)
    return HyperDual(where(cond, a.v, b.v), pick(a.g, b.g), h)


def _scale(d: dict[Any, Any], c: Any) -> dict[Any, Any]:
    return {k: x * c for k, x in d.items()}


def _acc(d: dict[Any, Any], k: Any, x: Any) -> None:
    prev = d.get(k)
    d[k] = x if prev is None else prev + x


def _sum(a: dict[Any, Any], b: dict[Any, Any]) -> dict[Any, Any]:
    out = dict(a)
    for k, x in b.items():
        _acc(out, k, x)
    return out


class ScalarMap(Model):
    """Leaf computing one Scalar output from Scalar inputs and Scalar parameters.

    Subclasses set ``OUTPUT`` (the output option name), ``INPUTS`` (structural input option
    names, in schema order) and ``PARAMS`` (parameter names), and implement :meth:`evaluate`.
    An ``INPUTS`` entry may name a ``var_inputs`` option and a ``PARAMS`` entry a ``parameters``
    option: entry ``i`` of such a list is keyed ``<option>[i]`` (see :meth:`entries`). A model
    with several outputs, or a reduction, overrides :meth:`forward` with
    :meth:`hyper_dual_args` and :meth:`push_hyper_dual`.
    """

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    OUTPUT = ""
    INPUTS: tuple[str, ...] = ()
    PARAMS: tuple[str, ...] = ()

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Output from inputs ``x`` (option name → value) and parameters ``p`` (name → value)."""
        raise NotImplementedError

    def _listed(self, option: str) -> list[str] | None:
        """Variables or parameters of list option ``option`` (``None`` if not a list option)."""
        f = self.hit.field(option) if self.hit is not None else None
        if f is None or f.kind not in ("var_inputs", "parameters"):
            return None
        names: list[str] = getattr(self, _attr(self, f))
        return names

    def entries(self, d: dict[str, HyperDual], option: str) -> list[HyperDual]:
        """Values of list option ``option`` in ``x`` or ``p`` (keys ``<option>[i]``), in order."""
        return [d[f"{option}[{i}]"] for i in range(len(self._listed(option) or ()))]

    def _keyed(self, option: str, single: str | None) -> list[tuple[str, str | None]]:
        names = self._listed(option)
        if names is None:
            return [(option, single)]
        return [(f"{option}[{i}]", n) for i, n in enumerate(names)]

    def hyper_dual_args(
        self, args: tuple[Any, ...], v: Any, v2: Any = None, vh: Any = None
    ) -> tuple[dict[str, HyperDual], dict[str, HyperDual]]:
        """:meth:`evaluate`'s ``x`` and ``p`` from ``forward``'s arguments: variables (named
        after the input variables) when tangents ``v`` are requested, else constants."""
        second = v2 is not None or vh is not None
        keys = [kn for o in self.INPUTS for kn in self._keyed(o, self._var_renames.get(o))]
        variables = list(dict.fromkeys(n for _, n in keys if n is not None))  # in call order
        vals = dict(zip(variables, args, strict=False))
        promoted = args[len(variables) :]

        def lift(val: Any, name: str | None) -> HyperDual:
            if v is None or name is None:
                return HyperDual.lift(val, second)
            return HyperDual.variable(val, name, second)

        x = {key: lift(vals[n], n) for key, n in keys if n is not None}
        p = {
            key: lift(self._get_param(n, promoted), self.promoted_input(n))
            for o in self.PARAMS
            for key, n in self._keyed(o, o)
            if n is not None
        }
        return x, p

    def push_hyper_dual(
        self,
        output_name: str,
        y: HyperDual,
        out: Any,
        v: Any,
        v2: Any = None,
        vh: Any = None,
        reduce: Callable[[Any], Any] | None = None,
    ) -> tuple[Any, ...]:
        """Tangents of output ``output_name`` (value ``out``) from the gradient and Hessian of
        ``y``. ``reduce`` (a linear map, e.g. a sum over a sub-batch axis) is applied to every
        contribution; a model using it sets ``ACCEPTS_DEFERRED_TANGENTS = False``."""
        r = reduce if reduce is not None else (lambda t: t)
        actions: dict[str, Any] = {
            k: scaled_by(gk) if reduce is None else (lambda d, gk=gk: r(gk * d))
            for k, gk in y.g.items()
        }
        actions_2: dict[Pair, Any] = {
            k: (lambda a, b, hk=hk: r(hk * a * b)) for k, hk in (y.h or {}).items()
        }
        return self.propagate_tangents(
            v, output_name, actions, output=out, v2=v2, vh=vh, actions_2=actions_2
        )

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Output and (with ``v``) first/second-order tangents."""
        x, p = self.hyper_dual_args(args, v, v2, vh)
        y = self.evaluate(x, p)
        out = y.v if isinstance(y.v, Scalar) else Scalar(torch.as_tensor(y.v))
        if v is None:
            return out
        return out, *self.push_hyper_dual(self.OUTPUT, y, out, v, v2, vh)
