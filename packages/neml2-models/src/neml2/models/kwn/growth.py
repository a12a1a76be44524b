r"""Precipitate growth: ``ProjectedDiffusivitySum``, ``SFFKPrecipitationGrowthRate`` and
``RateLimitedPrecipitateGrowthRate``.

* ``ProjectedDiffusivitySum``: :math:`s = \sum_i \Delta x_i^2/(D_i\, x^\infty_i)`
  (``far_field_concentrations`` :math:`x^\infty_i`, ``concentration_differences``
  :math:`\Delta x_i`, ``diffusivities`` :math:`D_i`).
* ``SFFKPrecipitationGrowthRate`` (Svoboda-Fischer-Fratzl-Kozeschnik):
  :math:`\dot R = \Delta g/(R\, R_g T\, s)`.
* ``RateLimitedPrecipitateGrowthRate``: :math:`\dot R = D (x - x^{eq})/(R\, \Delta x)`.

All are (sums of) products of powers; their exact first and second derivatives with respect to
the inputs and promoted parameters come from hyper-dual arithmetic
(:class:`~neml2.models._scalar_function.ScalarMap`), e.g.
:math:`\partial s/\partial x^\infty_i = -\Delta x_i^2/(D_i x^{\infty 2}_i)`,
:math:`\partial\dot R/\partial R = -\dot R/R`. Construction refuses list options of other
lengths than the variable list (as v3.1.0) and, unlike v3.1.0 (which accepts them), non-positive
constant diffusivities of ``ProjectedDiffusivitySum`` and a negative constant diffusivity of
``RateLimitedPrecipitateGrowthRate``.
"""

from __future__ import annotations

import operator
from functools import reduce

from neml2._registry import register_neml2_object
from neml2.models._checks import check_list_lengths, check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.schema import HitSchema, input, output, parameter, parameters, var_inputs
from neml2.tensors import Scalar

__all__ = [
    "ProjectedDiffusivitySum",
    "RateLimitedPrecipitateGrowthRate",
    "SFFKPrecipitationGrowthRate",
]


@register_neml2_object("ProjectedDiffusivitySum")
class ProjectedDiffusivitySum(ScalarMap):
    """Projected diffusivity sum s = sum_i dx_i^2 / (D_i x_i)."""

    OUTPUT = "projected_diffusivity_sum"
    INPUTS = ("far_field_concentrations",)
    PARAMS = ("concentration_differences", "diffusivities")
    xs: list[str]
    dx: list[str]
    D: list[str]
    hit = HitSchema(
        var_inputs("far_field_concentrations", Scalar, "Far-field concentrations x_i",
                   attr="xs"),
        output("projected_diffusivity_sum", Scalar, "Projected diffusivity sum s",
               default="projected_diffusivity_sum"),
        parameters("concentration_differences", Scalar,
                   "Concentration differences dx_i (precipitate - matrix)", attr="dx",
                   allow_promotion=True),
        parameters("diffusivities", Scalar, "Diffusivities D_i", attr="D",
                   allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_list_lengths("far_field_concentrations", len(self.xs),
                           concentration_differences=self.dx, diffusivities=self.D)  # fmt: skip
        for d in self.D:
            check_literal(self, d, lambda t: t > 0, "must be positive", option="diffusivities")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\sum_i \\Delta x_i^2/(D_i x^\\infty_i)`."""
        xs = self.entries(x, "far_field_concentrations")
        dxs, ds = self.entries(p, "concentration_differences"), self.entries(p, "diffusivities")
        terms = zip(xs, dxs, ds, strict=True)
        return reduce(operator.add, (dx * dx / (d * c) for c, dx, d in terms))


@register_neml2_object("SFFKPrecipitationGrowthRate")
class SFFKPrecipitationGrowthRate(ScalarMap):
    """SFFK growth rate dR/dt = dg / (R R_g T s)."""

    OUTPUT = "growth_rate"
    INPUTS = ("projected_diffusivity_sum", "temperature")
    PARAMS = ("radius", "gibbs_free_energy_difference", "gas_constant")
    hit = HitSchema(
        input("projected_diffusivity_sum", Scalar, "Projected diffusivity sum s",
              default="projected_diffusivity_sum"),
        input("temperature", Scalar, "Temperature T", default="temperature"),
        output("growth_rate", Scalar, "Growth rate dR/dt", default="growth_rate"),
        parameter("radius", Scalar, "Precipitate radius R", allow_promotion=True),
        parameter("gibbs_free_energy_difference", Scalar, "Gibbs free energy difference dg",
                  allow_promotion=True),
        parameter("gas_constant", Scalar, "Gas constant R_g", allow_promotion=True),
    )  # fmt: skip

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\Delta g/(R R_g T s)`."""
        den = p["radius"] * p["gas_constant"] * x["temperature"] * x["projected_diffusivity_sum"]
        return p["gibbs_free_energy_difference"] / den


@register_neml2_object("RateLimitedPrecipitateGrowthRate")
class RateLimitedPrecipitateGrowthRate(ScalarMap):
    """Diffusion-limited growth rate dR/dt = D (x - x_eq) / (R dx)."""

    OUTPUT = "growth_rate"
    INPUTS = ("current_concentration",)
    PARAMS = ("radius", "equilibrium_concentration", "concentration_difference", "diffusivity")
    hit = HitSchema(
        input("current_concentration", Scalar, "Current matrix concentration x",
              default="current_concentration"),
        output("growth_rate", Scalar, "Growth rate dR/dt", default="growth_rate"),
        parameter("radius", Scalar, "Precipitate radius R", allow_promotion=True),
        parameter("equilibrium_concentration", Scalar, "Equilibrium concentration x_eq",
                  allow_promotion=True),
        parameter("concentration_difference", Scalar,
                  "Concentration difference dx (precipitate - matrix)", allow_promotion=True),
        parameter("diffusivity", Scalar, "Diffusivity D", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_literal(self, "diffusivity", lambda t: t >= 0, "must be non-negative")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`D (x - x^{eq})/(R \\Delta x)`."""
        ss = x["current_concentration"] - p["equilibrium_concentration"]
        return p["diffusivity"] * ss / (p["radius"] * p["concentration_difference"])
