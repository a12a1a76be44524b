r"""``LinearIsotropicElasticJ2TrialStressUpdate``:
:math:`s = s_{trial} - 3G\,(\bar\varepsilon_p - \bar\varepsilon_p^{n})` (radial return).

:math:`s_{trial}` is the elastic trial (von Mises) stress, :math:`\bar\varepsilon_p^{n}` the
equivalent plastic strain of the previous step (``<equivalent_plastic_strain>~1``) and
:math:`G` the shear modulus implied by the two elastic constants (``coefficients`` +
``coefficient_types``, e.g. :math:`G = E/(2(1+\nu))`).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.models.solid_mechanics.elasticity._elastic_constants import (
    check_KG,
    declare_coefficients,
    pair_to_KG,
)
from neml2.schema import HitSchema, derived_input, input, option, output
from neml2.tensors import Scalar

__all__ = ["LinearIsotropicElasticJ2TrialStressUpdate"]


@register_neml2_object("LinearIsotropicElasticJ2TrialStressUpdate")
class LinearIsotropicElasticJ2TrialStressUpdate(ScalarMap):
    """Update of the elastic trial stress by the plastic strain increment (radial return)."""

    OUTPUT = "updated_trial_stress"
    INPUTS = ("elastic_trial_stress", "equivalent_plastic_strain", "equivalent_plastic_strain~1")
    hit = HitSchema(
        input("elastic_trial_stress", Scalar, "Elastic trial (von Mises) stress"),
        input("equivalent_plastic_strain", Scalar, "Equivalent plastic strain"),
        derived_input("equivalent_plastic_strain", Scalar, suffix="~1"),
        output("updated_trial_stress", Scalar, "Updated trial stress"),
        option("coefficients", list, "Two elastic constants (literals, tensors or variables)"),
        option("coefficient_types", list,
               "Types of the coefficients, e.g. 'YOUNGS_MODULUS POISSONS_RATIO'"),
    )  # fmt: skip

    coefficients: list[str]
    coefficient_types: list[str]

    def __init__(self, **hit_values: Any) -> None:
        factory = hit_values.get("factory")
        super().__init__(**hit_values)
        self.PARAMS = tuple(
            declare_coefficients(self, self.coefficients, self.coefficient_types, factory, count=2)
        )
        check_KG(self, self.PARAMS)

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`s_{trial} - 3G(\\bar\\varepsilon_p - \\bar\\varepsilon_p^n)`."""
        g: HyperDual = pair_to_KG(p)[1]
        dep = x["equivalent_plastic_strain"] - x["equivalent_plastic_strain~1"]
        return x["elastic_trial_stress"] - 3.0 * g * dep
