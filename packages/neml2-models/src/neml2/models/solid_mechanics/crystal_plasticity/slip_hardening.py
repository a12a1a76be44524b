r"""Evolution of slip-system hardening and dislocation density.

* ``LinearSingleSlipHardeningRule``: :math:`\dot{\bar\tau} = \theta \sum_i|\dot\gamma_i|`;
* ``VoceSingleSlipHardeningRule``: :math:`\dot{\bar\tau} = \theta_0 (1 - \bar\tau/\tau_f)
  \sum_i|\dot\gamma_i|`;
* ``PerSlipForestDislocationEvolution``: :math:`\dot\rho_i = (k_1\sqrt{\rho_i} - k_2\rho_i)
  |\dot\gamma_i|` (per slip system).
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import Scalar, abs, sign

__all__ = [
    "LinearSingleSlipHardeningRule",
    "PerSlipForestDislocationEvolution",
    "VoceSingleSlipHardeningRule",
]

_HARDENING_INPUTS = (
    input("slip_hardening", Scalar, "Slip hardening tau_bar"),
    input("sum_slip_rates", Scalar, "Sum of the absolute slip rates"),
    output("slip_hardening_rate", Scalar, "Rate of the slip hardening"),
)


@register_neml2_object("LinearSingleSlipHardeningRule")
class LinearSingleSlipHardeningRule(ScalarMap):
    """Slip hardening rate theta * sum |gamma_dot_i|."""

    OUTPUT = "slip_hardening_rate"
    INPUTS = ("slip_hardening", "sum_slip_rates")
    PARAMS = ("hardening_slope",)
    hit = HitSchema(
        *_HARDENING_INPUTS,
        parameter("hardening_slope", Scalar, "Hardening slope theta", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        r""":math:`\theta\sum_i|\dot\gamma_i|`."""
        return p["hardening_slope"] * x["sum_slip_rates"]


@register_neml2_object("VoceSingleSlipHardeningRule")
class VoceSingleSlipHardeningRule(ScalarMap):
    """Slip hardening rate theta0 (1 - tau_bar/tau_f) sum |gamma_dot_i|."""

    OUTPUT = "slip_hardening_rate"
    INPUTS = ("slip_hardening", "sum_slip_rates")
    PARAMS = ("initial_slope", "saturated_hardening")
    hit = HitSchema(
        *_HARDENING_INPUTS,
        parameter("initial_slope", Scalar, "Initial hardening slope theta0",
                  allow_promotion=True),
        parameter("saturated_hardening", Scalar, "Saturated hardening tau_f",
                  allow_promotion=True),
    )  # fmt: skip

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        r""":math:`\theta_0(1 - \bar\tau/\tau_f)\sum_i|\dot\gamma_i|`."""
        ratio = x["slip_hardening"] / p["saturated_hardening"]
        return p["initial_slope"] * (1.0 - ratio) * x["sum_slip_rates"]


@register_neml2_object("PerSlipForestDislocationEvolution")
class PerSlipForestDislocationEvolution(ScalarMap):
    """Dislocation density rate (k1 sqrt(rho) - k2 rho) |gamma_dot| per slip system."""

    OUTPUT = "dislocation_density_rate"
    INPUTS = ("dislocation_density", "slip_rates")
    PARAMS = ("k1", "k2")
    hit = HitSchema(
        input("dislocation_density", Scalar, "Dislocation density rho"),
        input("slip_rates", Scalar, "Slip rate of each slip system"),
        derived_output("dislocation_density", Scalar, suffix="_rate"),
        parameter("k1", Scalar, "Storage coefficient k1", allow_promotion=True),
        parameter("k2", Scalar, "Recovery coefficient k2", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        r""":math:`(k_1\sqrt\rho - k_2\rho)|\dot\gamma|`."""
        rho = x["dislocation_density"]
        speed = x["slip_rates"].apply(abs, sign, lambda s: 0.0 * s)
        return (p["k1"] * rho.sqrt() - p["k2"] * rho) * speed
