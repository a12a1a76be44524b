r"""Thermodynamics of the matrix: ``ChemicalGibbsFreeEnergyDifference``,
``IdealSolutionVolumetricDrivingForce`` and ``CurrentConcentration``.

* ``ChemicalGibbsFreeEnergyDifference``: :math:`\Delta g = \sum_i (\mu_i - \mu_i^{eq})\,\Delta x_i`
  (``concentration_differences`` :math:`\Delta x_i`, ``chemical_potentials`` :math:`\mu_i`,
  ``equilibrium_potentials`` :math:`\mu^{eq}_i`); bilinear, so
  :math:`\partial^2\Delta g/\partial\mu_i\partial\Delta x_i = 1`,
  :math:`\partial^2\Delta g/\partial\mu^{eq}_i\partial\Delta x_i = -1`.
* ``IdealSolutionVolumetricDrivingForce``:
  :math:`\Delta g = R_g T \sum_i w_i \ln(x_i/x^{eq}_i)` (``current_concentrations`` :math:`x_i`,
  ``equilibrium_concentrations`` :math:`x^{eq}_i`, ``weights`` :math:`w_i`, one per species or one
  for all, default 1); :math:`\partial\Delta g/\partial x_i = R_g T w_i/x_i`,
  :math:`\partial^2\Delta g/\partial x_i^2 = -R_g T w_i/x_i^2`.
* ``CurrentConcentration``: solute left in the matrix,
  :math:`x = (x_0 - \sum_p f_p x_p)/(1 - \sum_p f_p)` (``precipitate_volume_fractions``
  :math:`f_p`, ``initial_concentration`` :math:`x_0`, ``precipitate_concentrations``
  :math:`x_p`). With :math:`d = 1 - \sum f`: :math:`\partial x/\partial f_p = (x - x_p)/d`,
  :math:`\partial x/\partial x_0 = 1/d`, :math:`\partial x/\partial x_p = -f_p/d`,
  :math:`\partial^2 x/\partial f_p\partial f_q = (2x - x_p - x_q)/d^2`.

Derivatives (first and second, including promoted parameters) by hyper-dual arithmetic
(:class:`~neml2.models._scalar_function.ScalarMap`). List options must have one entry per
variable (v3.1.0 refuses other lengths too).
"""

from __future__ import annotations

import operator
from functools import reduce

from neml2._registry import register_neml2_object
from neml2.models._checks import check_list_lengths
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_log
from neml2.schema import HitSchema, input, output, parameter, parameters, var_inputs
from neml2.tensors import Scalar

__all__ = [
    "ChemicalGibbsFreeEnergyDifference",
    "CurrentConcentration",
    "IdealSolutionVolumetricDrivingForce",
]


@register_neml2_object("ChemicalGibbsFreeEnergyDifference")
class ChemicalGibbsFreeEnergyDifference(ScalarMap):
    """Chemical Gibbs free energy difference sum_i (mu_i - mu_eq_i) dx_i."""

    OUTPUT = "chemical_gibbs_free_energy"
    INPUTS = ("concentration_differences",)
    PARAMS = ("chemical_potentials", "equilibrium_potentials")
    dx: list[str]
    mu: list[str]
    mu_eq: list[str]
    hit = HitSchema(
        var_inputs("concentration_differences", Scalar, "Concentration differences dx_i",
                   attr="dx"),
        output("chemical_gibbs_free_energy", Scalar, "Gibbs free energy difference dg",
               default="chemical_gibbs_free_energy"),
        parameters("chemical_potentials", Scalar, "Chemical potentials mu_i", attr="mu",
                   allow_promotion=True),
        parameters("equilibrium_potentials", Scalar, "Equilibrium chemical potentials mu_eq_i",
                   attr="mu_eq", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        lists = {"chemical_potentials": self.mu, "equilibrium_potentials": self.mu_eq}
        check_list_lengths("concentration_differences", len(self.dx), **lists)

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\sum_i (\\mu_i - \\mu^{eq}_i) \\Delta x_i`."""
        dx = self.entries(x, "concentration_differences")
        mu = self.entries(p, "chemical_potentials")
        mu_eq = self.entries(p, "equilibrium_potentials")
        return reduce(operator.add, ((m - me) * d for d, m, me in zip(dx, mu, mu_eq, strict=True)))


@register_neml2_object("IdealSolutionVolumetricDrivingForce")
class IdealSolutionVolumetricDrivingForce(ScalarMap):
    """Ideal-solution driving force R_g T sum_i w_i ln(x_i / x_eq_i)."""

    OUTPUT = "driving_force"
    INPUTS = ("temperature", "current_concentrations")
    PARAMS = ("gas_constant", "equilibrium_concentrations", "weights")
    xs: list[str]
    x_eq: list[str]
    w: list[str]
    hit = HitSchema(
        input("temperature", Scalar, "Temperature T", default="temperature"),
        var_inputs("current_concentrations", Scalar, "Current concentrations x_i", attr="xs"),
        output("driving_force", Scalar, "Volumetric driving force dg", default="driving_force"),
        parameter("gas_constant", Scalar, "Gas constant R_g"),
        parameters("equilibrium_concentrations", Scalar, "Equilibrium concentrations x_eq_i",
                   attr="x_eq", allow_promotion=True),
        parameters("weights", Scalar, "Weights w_i (one per species, or one for all)",
                   default="1", attr="w"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        n = len(self.xs)
        check_list_lengths("current_concentrations", n, equilibrium_concentrations=self.x_eq)
        if len(self.w) not in (1, n):
            raise ValueError(
                f"option 'weights': expected 1 or {n} entries (one per 'current_concentrations' "
                f"variable), got {len(self.w)}"
            )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`R_g T \\sum_i w_i \\ln(x_i/x^{eq}_i)`."""
        xs = self.entries(x, "current_concentrations")
        x_eq = self.entries(p, "equilibrium_concentrations")
        ws = self.entries(p, "weights")
        ws = ws * len(xs) if len(ws) == 1 else ws
        terms = zip(xs, x_eq, ws, strict=True)
        s = reduce(operator.add, (w * (hd_log(c) - hd_log(ce)) for c, ce, w in terms))
        return p["gas_constant"] * x["temperature"] * s


@register_neml2_object("CurrentConcentration")
class CurrentConcentration(ScalarMap):
    """Matrix concentration (x0 - sum_p f_p x_p) / (1 - sum_p f_p)."""

    OUTPUT = "current_concentration"
    INPUTS = ("precipitate_volume_fractions",)
    PARAMS = ("initial_concentration", "precipitate_concentrations")
    fs: list[str]
    xp: list[str]
    hit = HitSchema(
        var_inputs("precipitate_volume_fractions", Scalar, "Precipitate volume fractions f_p",
                   attr="fs"),
        output("current_concentration", Scalar, "Current matrix concentration x",
               default="current_concentration"),
        parameter("initial_concentration", Scalar, "Initial concentration x0",
                  allow_promotion=True),
        parameters("precipitate_concentrations", Scalar, "Concentrations x_p in the precipitates",
                   attr="xp", allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_list_lengths(
            "precipitate_volume_fractions", len(self.fs), precipitate_concentrations=self.xp
        )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`(x_0 - \\sum_p f_p x_p)/(1 - \\sum_p f_p)`."""
        fs = self.entries(x, "precipitate_volume_fractions")
        num = p["initial_concentration"]
        for f, xp in zip(fs, self.entries(p, "precipitate_concentrations"), strict=True):
            num = num - f * xp
        return num / reduce(operator.sub, fs[1:], 1.0 - fs[0])
