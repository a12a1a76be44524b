r"""Classical nucleation theory: ``NucleationBarrierAndCriticalRadius``, ``ZeldovichFactor``,
``KineticFactor`` and ``NucleationFluxMagnitude``.

* ``NucleationBarrierAndCriticalRadius``: with surface energy :math:`\gamma`, molar volume
  :math:`V_m` and the (volumetric, J/mol) driving force :math:`\Delta g`,
  :math:`R^* = 2\gamma V_m/\Delta g`, :math:`\Delta G^* = \frac{16\pi}{3}\gamma^3 V_m^2/\Delta g^2`.
* ``ZeldovichFactor``: :math:`Z = \frac{V_m}{2\pi N_a R^{*2}}\sqrt{\gamma/(k T)}`.
* ``KineticFactor``: :math:`\beta^* = 4\pi N_a^{4/3} R^{*2}/(V_m^{4/3} s)`, with :math:`s` the
  projected diffusivity sum (``ProjectedDiffusivitySum``), i.e. the CNT attachment rate
  :math:`4\pi R^{*2} D x/a^4` with the atomic spacing :math:`a = (V_m/N_a)^{1/3}` and
  :math:`D x \to 1/s`.
* ``NucleationFluxMagnitude``: :math:`J = Z \beta^* N_0 \exp(-\Delta G^*/(k T))`.

All are products of powers (times an exponential for :math:`J`); their exact first and second
derivatives with respect to the inputs and promoted parameters come from hyper-dual arithmetic
(:class:`~neml2.models._scalar_function.ScalarMap`), e.g.
:math:`\partial R^*/\partial\Delta g = -R^*/\Delta g`,
:math:`\partial J/\partial\Delta G^* = -J/(k T)`.
Construction refuses non-positive constant :math:`\gamma` and :math:`V_m` (v3.1.0 accepts them).
"""

from __future__ import annotations

import math
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_exp, hd_pow
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = [
    "KineticFactor",
    "NucleationBarrierAndCriticalRadius",
    "NucleationFluxMagnitude",
    "ZeldovichFactor",
]

_GAMMA = "Surface energy gamma of the precipitate-matrix interface"
_VM = "Molar volume V_m of the precipitate"


@register_neml2_object("NucleationBarrierAndCriticalRadius")
class NucleationBarrierAndCriticalRadius(ScalarMap):
    """Nucleation barrier and critical radius of classical nucleation theory."""

    PARAMS = ("surface_energy", "total_gibbs_free_energy_difference", "molar_volume")
    hit = HitSchema(
        output("nucleation_barrier", Scalar, "Nucleation barrier dG*",
               default="nucleation_barrier"),
        output("critical_radius", Scalar, "Critical radius R*", default="critical_radius"),
        parameter("surface_energy", Scalar, _GAMMA, allow_promotion=True),
        parameter("total_gibbs_free_energy_difference", Scalar,
                  "Volumetric driving force dg (J/mol)", allow_promotion=True),
        parameter("molar_volume", Scalar, _VM),
    )  # fmt: skip

    def __post_init__(self) -> None:
        _check_positive(self, "surface_energy", "molar_volume")

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Barrier and critical radius and (with ``v``) their tangents."""
        _, p = self.hyper_dual_args(args, v, v2, vh)
        g, dg, vm = (p[k] for k in self.PARAMS)
        barrier = 16.0 * math.pi / 3.0 * vm * vm * hd_pow(g, 3.0) * hd_pow(dg, -2.0)
        radius = 2.0 * vm * g * hd_pow(dg, -1.0)
        if v is None:
            return barrier.v, radius.v
        rb = self.push_hyper_dual("nucleation_barrier", barrier, barrier.v, v, v2, vh)
        rr = self.push_hyper_dual("critical_radius", radius, radius.v, v, v2, vh)
        return barrier.v, radius.v, *({**a, **b} for a, b in zip(rb, rr, strict=True))


@register_neml2_object("ZeldovichFactor")
class ZeldovichFactor(ScalarMap):
    """Zeldovich factor Z = V_m/(2 pi N_a R*^2) sqrt(gamma/(k T))."""

    OUTPUT = "zeldovich_factor"
    INPUTS = ("critical_radius", "temperature")
    PARAMS = ("surface_energy", "molar_volume", "avogadro_number", "boltzmann_constant")
    hit = HitSchema(
        input("critical_radius", Scalar, "Critical radius R*", default="critical_radius"),
        input("temperature", Scalar, "Temperature T", default="temperature"),
        output("zeldovich_factor", Scalar, "Zeldovich factor Z", default="zeldovich_factor"),
        parameter("surface_energy", Scalar, _GAMMA, allow_promotion=True),
        parameter("molar_volume", Scalar, _VM),
        parameter("avogadro_number", Scalar, "Avogadro number N_a"),
        parameter("boltzmann_constant", Scalar, "Boltzmann constant k"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        _check_positive(self, "surface_energy", "molar_volume")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`V_m/(2\\pi N_a R^{*2}) \\sqrt{\\gamma/(k T)}`."""
        c = p["molar_volume"] / (2.0 * math.pi * p["avogadro_number"])
        c = c * hd_pow(p["boltzmann_constant"], -0.5)
        r, t, g = x["critical_radius"], x["temperature"], p["surface_energy"]
        return c * hd_pow(r, -2.0) * hd_pow(t, -0.5) * hd_pow(g, 0.5)


@register_neml2_object("KineticFactor")
class KineticFactor(ScalarMap):
    """Kinetic factor beta* = 4 pi N_a^(4/3) R*^2 / (V_m^(4/3) s)."""

    OUTPUT = "kinetic_factor"
    INPUTS = ("critical_radius", "projected_diffusivity_sum")
    PARAMS = ("molar_volume", "avogadro_number")
    hit = HitSchema(
        input("critical_radius", Scalar, "Critical radius R*", default="critical_radius"),
        input("projected_diffusivity_sum", Scalar, "Projected diffusivity sum s",
              default="projected_diffusivity_sum"),
        output("kinetic_factor", Scalar, "Kinetic factor beta*", default="kinetic_factor"),
        parameter("molar_volume", Scalar, _VM, allow_promotion=True),
        parameter("avogadro_number", Scalar, "Avogadro number N_a", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        _check_positive(self, "molar_volume")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`4\\pi N_a^{4/3} R^{*2}/(V_m^{4/3} s)`."""
        r, s = x["critical_radius"], x["projected_diffusivity_sum"]
        y = 4.0 * math.pi * r * r * hd_pow(s, -1.0)
        return y * hd_pow(p["molar_volume"], -4.0 / 3.0) * hd_pow(p["avogadro_number"], 4.0 / 3.0)


@register_neml2_object("NucleationFluxMagnitude")
class NucleationFluxMagnitude(ScalarMap):
    """Steady-state nucleation rate J = Z beta* N0 exp(-dG*/(k T))."""

    OUTPUT = "nucleation_flux_magnitude"
    INPUTS = ("zeldovich_factor", "kinetic_factor", "nucleation_barrier", "temperature")
    PARAMS = ("nucleation_site_density", "boltzmann_constant")
    hit = HitSchema(
        input("zeldovich_factor", Scalar, "Zeldovich factor Z", default="zeldovich_factor"),
        input("kinetic_factor", Scalar, "Kinetic factor beta*", default="kinetic_factor"),
        input("nucleation_barrier", Scalar, "Nucleation barrier dG*",
              default="nucleation_barrier"),
        input("temperature", Scalar, "Temperature T", default="temperature"),
        output("nucleation_flux_magnitude", Scalar, "Nucleation rate J",
               default="nucleation_flux_magnitude"),
        parameter("nucleation_site_density", Scalar, "Nucleation site density N0",
                  allow_promotion=True),
        parameter("boltzmann_constant", Scalar, "Boltzmann constant k"),
    )  # fmt: skip

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`Z \\beta^* N_0 \\exp(-\\Delta G^*/(k T))`."""
        u = -1.0 / p["boltzmann_constant"] * x["nucleation_barrier"]
        u = u * hd_pow(x["temperature"], -1.0)
        pre = x["zeldovich_factor"] * x["kinetic_factor"] * p["nucleation_site_density"]
        return pre * hd_exp(u)


def _check_positive(model: ScalarMap, *names: str) -> None:
    for name in names:
        check_literal(model, name, lambda t: t > 0, "must be positive")
