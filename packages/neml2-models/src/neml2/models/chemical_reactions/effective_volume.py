r"""``EffectiveVolume``: volume of a porous composite of several phases.

With reference mass :math:`M`, mass fractions :math:`w_i` (``mass_fractions``), phase densities
:math:`\rho_i` (``densities``, one per mass fraction) and the optional open volume fraction
:math:`\varphi_o` (porosity; without it :math:`\varphi_o = 0`):

.. math::  V = \frac{M}{1 - \varphi_o} \sum_i \frac{w_i}{\rho_i}, \qquad
   \frac{\partial V}{\partial w_i} = \frac{M}{(1 - \varphi_o)\rho_i}, \qquad
   \frac{\partial V}{\partial \varphi_o} = \frac{V}{1 - \varphi_o}, \qquad
   \frac{\partial V}{\partial M} = \frac{V}{M}.

Second derivatives (including a promoted :math:`M`) follow by hyper-dual arithmetic.
Construction checks: the number of ``densities`` must equal that of ``mass_fractions`` (as v3);
beyond v3, at least one mass fraction is needed, names may not repeat (v3 accepts a repeated
name but then fails when evaluated), the densities must be positive and a constant
``reference_mass`` non-negative. (v3 3.1.0 also fails to evaluate with a promoted
``reference_mass``; here it works.)
"""

from __future__ import annotations

import operator
from functools import reduce

from neml2._registry import register_neml2_object
from neml2.models._checks import check_list_lengths, check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.schema import HitSchema, input, output, parameter, parameters, var_inputs
from neml2.tensors import Scalar

__all__ = ["EffectiveVolume"]


@register_neml2_object("EffectiveVolume")
class EffectiveVolume(ScalarMap):
    """Composite volume M / (1 - phi_o) sum_i w_i / rho_i."""

    OUTPUT = "composite_volume"
    INPUTS = ("open_volume_fraction", "mass_fractions")
    PARAMS = ("reference_mass", "densities")
    open_volume_name: str | None
    mass_fraction_names: list[str]
    density_names: list[str]
    hit = HitSchema(
        input("open_volume_fraction", Scalar, "Open volume fraction phi_o (optional)",
              default=None, attr="open_volume_name"),
        var_inputs("mass_fractions", Scalar, "Mass fractions w_i of the phases",
                   attr="mass_fraction_names"),
        output("composite_volume", Scalar, "Composite volume V"),
        parameter("reference_mass", Scalar, "Reference mass M", allow_promotion=True),
        parameters("densities", Scalar, "Density rho_i of each phase", attr="density_names"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        n = len(self.mass_fraction_names)
        check_list_lengths("mass_fractions", n, densities=self.density_names)
        if len(set(self.mass_fraction_names)) != n:
            raise ValueError(
                f"option 'mass_fractions': duplicate variable names in {self.mass_fraction_names}"
            )
        for i, name in enumerate(self.density_names):
            rule = f"value {i} must be positive"
            check_literal(self, name, lambda t: t > 0, rule, option="densities")
        check_literal(self, "reference_mass", lambda t: t >= 0, "must be non-negative")
        if self.open_volume_name in self.mass_fraction_names:
            raise ValueError(
                f"option 'open_volume_fraction': '{self.open_volume_name}' is also a mass fraction"
            )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        r""":math:`\frac{M}{1 - \varphi_o} \sum_i w_i/\rho_i`."""
        terms = zip(self.entries(x, "mass_fractions"), self.entries(p, "densities"), strict=True)
        s = reduce(operator.add, (w / rho for w, rho in terms))
        y: HyperDual = p["reference_mass"] * s
        if "open_volume_fraction" in x:
            y = y / (1.0 - x["open_volume_fraction"])
        return y
