r"""Kocks-Mecking rate-dependence models (:math:`\mu` shear modulus, :math:`k` Boltzmann
constant, :math:`b` Burgers vector, :math:`\dot\varepsilon_0` reference strain rate).

* ``KocksMeckingActivationEnergy``: :math:`g = \frac{kT}{\mu b^3}\ln(\dot\varepsilon_0/\dot\varepsilon)`.
* ``KocksMeckingFlowSwitch``: :math:`s = \tfrac12(\tanh(a(g - g_0)) + 1)`,
  :math:`\dot\gamma = s\,\dot\gamma_{rd} + (1 - s)\,\dot\gamma_{ri}` (:math:`a` = sharpness).
* ``KocksMeckingFlowViscosity``: :math:`\eta = e^B \mu\,\dot\varepsilon_0^{kTA/(\mu b^3)}`
  (output named after the block).
* ``KocksMeckingIntercept``: :math:`(C - B)/A`.
* ``KocksMeckingRateSensitivity``: :math:`m = -\mu b^3/(kTA)`.
* ``KocksMeckingYieldStress``: :math:`\tau = \mu e^C`.
"""

from __future__ import annotations

import math
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._checks import positive_and_finite
from neml2.models._scalar_function import (
    HyperDual,
    ScalarMap,
    hd_exp,
    hd_log,
    hd_tanh,
)
from neml2.schema import BLOCK_NAME, HitSchema, input, option, output, parameter
from neml2.tensors import Scalar

__all__ = [
    "KocksMeckingActivationEnergy",
    "KocksMeckingFlowSwitch",
    "KocksMeckingFlowViscosity",
    "KocksMeckingIntercept",
    "KocksMeckingRateSensitivity",
    "KocksMeckingYieldStress",
]


def _mu(doc: str = "Shear modulus") -> Any:
    return parameter("shear_modulus", Scalar, doc, allow_promotion=True)


def _positive(model: Any, *names: str) -> None:
    for n in names:
        x = getattr(model, n)
        if not positive_and_finite(x):
            raise ValueError(f"option '{n}': must be positive and finite, got {x}")


@register_neml2_object("KocksMeckingActivationEnergy")
class KocksMeckingActivationEnergy(ScalarMap):
    """Normalized activation energy."""

    OUTPUT = "activation_energy"
    INPUTS = ("temperature", "strain_rate")
    PARAMS = ("shear_modulus",)
    hit = HitSchema(
        input("temperature", Scalar, "Temperature"),
        input("strain_rate", Scalar, "Equivalent strain rate"),
        output("activation_energy", Scalar, "Normalized activation energy"),
        _mu(),
        option("eps0", float, "Reference strain rate"),
        option("k", float, "Boltzmann constant"),
        option("b", float, "Burgers vector length"),
    )
    eps0: float
    k: float
    b: float

    def __post_init__(self) -> None:
        _positive(self, "eps0", "k", "b")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`kT/(\\mu b^3)\\ln(\\dot\\varepsilon_0/\\dot\\varepsilon)`."""
        c = self.k / self.b**3
        return (
            c
            * x["temperature"]
            / p["shear_modulus"]
            * (math.log(self.eps0) - hd_log(x["strain_rate"]))
        )


@register_neml2_object("KocksMeckingFlowSwitch")
class KocksMeckingFlowSwitch(ScalarMap):
    """Smooth switch between rate-independent and rate-dependent flow."""

    OUTPUT = "flow_rate"
    INPUTS = ("activation_energy", "rate_independent_flow_rate", "rate_dependent_flow_rate")
    PARAMS = ("g0",)
    hit = HitSchema(
        input("activation_energy", Scalar, "Normalized activation energy"),
        input("rate_independent_flow_rate", Scalar, "Rate-independent flow rate"),
        input("rate_dependent_flow_rate", Scalar, "Rate-dependent flow rate"),
        output("flow_rate", Scalar, "Blended flow rate"),
        parameter("g0", Scalar, "Transition activation energy", allow_promotion=True),
        option("sharpness", float, "Sharpness of the tanh switch", default=1.0),
    )
    sharpness: float

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`s\\dot\\gamma_{rd} + (1 - s)\\dot\\gamma_{ri}`."""
        s = 0.5 * (hd_tanh(float(self.sharpness) * (x["activation_energy"] - p["g0"])) + 1.0)
        return s * x["rate_dependent_flow_rate"] + (1.0 - s) * x["rate_independent_flow_rate"]


@register_neml2_object("KocksMeckingFlowViscosity")
class KocksMeckingFlowViscosity(ScalarMap):
    """Temperature-dependent flow viscosity."""

    OUTPUT = "viscosity"
    INPUTS = ("temperature",)
    PARAMS = ("A", "B", "shear_modulus")
    hit = HitSchema(
        input("temperature", Scalar, "Temperature"),
        output("viscosity", Scalar, "Flow viscosity", default=BLOCK_NAME),
        parameter("A", Scalar, "Kocks-Mecking slope A", allow_promotion=True),
        parameter("B", Scalar, "Kocks-Mecking intercept B", allow_promotion=True),
        _mu(),
        option("eps0", float, "Reference strain rate"),
        option("k", float, "Boltzmann constant"),
        option("b", float, "Burgers vector length"),
    )
    eps0: float
    k: float
    b: float

    def __post_init__(self) -> None:
        _positive(self, "eps0", "k", "b")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`e^B\\mu\\,\\dot\\varepsilon_0^{kTA/(\\mu b^3)}`."""
        mu = p["shear_modulus"]
        expo = (self.k / self.b**3) * x["temperature"] * p["A"] / mu
        return hd_exp(p["B"] + expo * math.log(self.eps0)) * mu


@register_neml2_object("KocksMeckingIntercept")
class KocksMeckingIntercept(ScalarMap):
    """Intercept of the Kocks-Mecking flow-stress line."""

    OUTPUT = "intercept"
    PARAMS = ("A", "B", "C")
    hit = HitSchema(
        output("intercept", Scalar, "Intercept (C - B)/A"),
        parameter("A", Scalar, "Kocks-Mecking slope A", allow_promotion=True),
        parameter("B", Scalar, "Kocks-Mecking intercept B", allow_promotion=True),
        parameter("C", Scalar, "Kocks-Mecking constant C", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`(C - B)/A`."""
        return (p["C"] - p["B"]) / p["A"]


@register_neml2_object("KocksMeckingRateSensitivity")
class KocksMeckingRateSensitivity(ScalarMap):
    """Temperature-dependent strain rate sensitivity."""

    OUTPUT = "rate_sensitivity"
    INPUTS = ("temperature",)
    PARAMS = ("A", "shear_modulus")
    hit = HitSchema(
        input("temperature", Scalar, "Temperature"),
        output("rate_sensitivity", Scalar, "Strain rate sensitivity"),
        parameter("A", Scalar, "Kocks-Mecking slope A", allow_promotion=True),
        _mu(),
        option("k", float, "Boltzmann constant"),
        option("b", float, "Burgers vector length"),
    )
    k: float
    b: float

    def __post_init__(self) -> None:
        _positive(self, "k", "b")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`-\\mu b^3/(kTA)`."""
        return -(self.b**3 / self.k) * p["shear_modulus"] / (x["temperature"] * p["A"])


@register_neml2_object("KocksMeckingYieldStress")
class KocksMeckingYieldStress(ScalarMap):
    """Rate-independent yield stress."""

    OUTPUT = "yield_stress"
    PARAMS = ("C", "shear_modulus")
    hit = HitSchema(
        output("yield_stress", Scalar, "Yield stress"),
        parameter("C", Scalar, "Kocks-Mecking constant C", allow_promotion=True),
        _mu(),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\mu e^C`."""
        return p["shear_modulus"] * hd_exp(p["C"])
