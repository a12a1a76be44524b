r"""Solid-state reaction rate laws of the conversion degree :math:`a`.

``AvramiErofeevNucleation`` (nucleation and growth), with :math:`L = -\ln(1 - a)`:

.. math::  r = k\,(1 - a)\,L^n, \qquad
   \frac{\partial r}{\partial a} = k\,(n L^{n-1} - L^n), \qquad
   \frac{\partial r}{\partial k} = (1 - a) L^n, \qquad
   \frac{\partial r}{\partial n} = r \ln L.

It is the rate form of the Avrami (JMAK) law :math:`a(t) = 1 - \exp(-(k' t)^m)`: since
:math:`\dot L = \dot a/(1 - a) = k L^n`, :math:`L^{1-n} = (1 - n) k t`, i.e.
:math:`m = 1/(1 - n)` and :math:`k' = (1 - n) k = k/m` (for :math:`n < 1`). No clamping: as in
NEML2 v3 the rate is 0 at :math:`a = 0` (derivative :math:`\infty` for :math:`n < 1`) and NaN for
:math:`a \ge 1`.

``ContractingGeometry`` (phase-boundary controlled, e.g. :math:`n = 1/2` contracting area,
:math:`n = 2/3` contracting volume), with :math:`c = \mathrm{clamp}(1 - a, \epsilon, 1 - \epsilon)`
(:math:`\epsilon` the machine epsilon of the dtype):

.. math::  r = k\,c^n, \qquad \frac{\partial r}{\partial a} = -k n c^{n-1}, \qquad
   \frac{\partial r}{\partial k} = c^n.

As in NEML2 v3, :math:`\partial r/\partial a` is :math:`-k n c^{n-1}` also where the clamp is
active (:math:`a \le \epsilon` or :math:`a \ge 1 - \epsilon`), i.e. the clamp is not
differentiated. Second derivatives follow by hyper-dual arithmetic (including promoted
:math:`k`, :math:`n`).

Construction checks (not made by v3, which accepts any value): a constant ``coef`` must be
non-negative (a negative rate constant drives :math:`a` out of :math:`[0, 1]`), and the
``ContractingGeometry`` ``order`` must be non-negative (:math:`n = 1 - 1/d` for a
:math:`d`-dimensional contracting body). The Avrami-Erofeev ``order`` may be negative
(:math:`0 < m < 1`).
"""

from __future__ import annotations

import torch

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_log, hd_pow
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, clamp

__all__ = ["AvramiErofeevNucleation", "ContractingGeometry"]


@register_neml2_object("AvramiErofeevNucleation")
class AvramiErofeevNucleation(ScalarMap):
    """Avrami-Erofeev nucleation rate k (1 - a) (-ln(1 - a))^n."""

    OUTPUT = "reaction_rate"
    INPUTS = ("conversion_degree",)
    PARAMS = ("coef", "order")
    hit = HitSchema(
        input("conversion_degree", Scalar, "Conversion degree a"),
        output("reaction_rate", Scalar, "Reaction rate r"),
        parameter("coef", Scalar, "Rate coefficient k", allow_promotion=True),
        parameter("order", Scalar, "Reaction order n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        check_literal(self, "coef", lambda t: t >= 0, "must be non-negative")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`k (1 - a) (-\\ln(1 - a))^n`."""
        c = 1.0 - x["conversion_degree"]
        y: HyperDual = p["coef"] * c * hd_pow(-hd_log(c), p["order"])
        return y


@register_neml2_object("ContractingGeometry")
class ContractingGeometry(ScalarMap):
    """Contracting-geometry rate k clamp(1 - a, eps, 1 - eps)^n."""

    OUTPUT = "reaction_rate"
    INPUTS = ("conversion_degree",)
    PARAMS = ("coef", "order")
    hit = HitSchema(
        input("conversion_degree", Scalar, "Conversion degree a"),
        output("reaction_rate", Scalar, "Reaction rate r"),
        parameter("coef", Scalar, "Rate coefficient k", allow_promotion=True),
        parameter("order", Scalar, "Reaction order n"),
    )

    def __post_init__(self) -> None:
        for name in ("coef", "order"):
            check_literal(self, name, lambda t: t >= 0, "must be non-negative")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`k\\,\\mathrm{clamp}(1 - a, \\epsilon, 1 - \\epsilon)^n` (clamp not
        differentiated)."""
        c = 1.0 - x["conversion_degree"]
        eps = torch.finfo(c.v.dtype).eps
        cc = c.apply(lambda t: clamp(t, eps, 1.0 - eps), lambda t: 1.0, None)
        y: HyperDual = p["coef"] * hd_pow(cc, p["order"])
        return y
