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

from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.tensors import Scalar, cosh, exp, log, sinh, sqrt, tanh

__all__ = [
    "HyperDual",
    "ScalarMap",
    "hd_cosh",
    "hd_exp",
    "hd_log",
    "hd_pow",
    "hd_sqrt",
    "hd_tanh",
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


def hd_pow(a: HyperDual, n: HyperDual) -> HyperDual:
    """:math:`a^n = e^{n \\ln a}` (:math:`a > 0`)."""
    return hd_exp(n * hd_log(a))


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
    """

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    OUTPUT = ""
    INPUTS: tuple[str, ...] = ()
    PARAMS: tuple[str, ...] = ()

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Output from inputs ``x`` (option name → value) and parameters ``p`` (name → value)."""
        raise NotImplementedError

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Output and (with ``v``) first/second-order tangents."""
        opts = [o for o in self.INPUTS if self._var_renames.get(o) is not None]
        structural, promoted = args[: len(opts)], args[len(opts) :]
        second = v2 is not None or vh is not None
        need = v is not None
        x: dict[str, Any] = {}
        for o, val in zip(opts, structural, strict=True):
            name = self._var_renames[o]
            x[o] = HyperDual.variable(val, name, second) if need else HyperDual.lift(val, False)
        p: dict[str, Any] = {}
        for name in self.PARAMS:
            val = self._get_param(name, promoted)
            src = self.promoted_input(name)
            p[name] = (
                HyperDual.variable(val, src, second)
                if need and src is not None
                else HyperDual.lift(val, second)
            )
        y = self.evaluate(x, p)
        out = y.v if isinstance(y.v, Scalar) else Scalar(torch.as_tensor(y.v))
        if v is None:
            return out
        actions = {k: scaled_by(gk) for k, gk in y.g.items()}
        actions_2 = {k: (lambda a, b, hk=hk: hk * a * b) for k, hk in (y.h or {}).items()}
        return out, *self.propagate_tangents(
            v, self.OUTPUT, actions, output=out, v2=v2, vh=vh, actions_2=actions_2
        )
