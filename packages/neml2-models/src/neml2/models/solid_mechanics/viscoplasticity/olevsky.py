r"""``OlevskySinteringStress``: :math:`\sigma_s = 3\gamma\phi^2/r`.

:math:`\gamma` surface tension, :math:`r` particle radius, :math:`\phi` void fraction.
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._checks import require_positive
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["OlevskySinteringStress"]


@register_neml2_object("OlevskySinteringStress")
class OlevskySinteringStress(ScalarMap):
    """Olevsky sintering stress."""

    OUTPUT = "sintering_stress"
    INPUTS = ("void_fraction",)
    PARAMS = ("surface_tension", "particle_radius")
    hit = HitSchema(
        input("void_fraction", Scalar, "Void fraction"),
        output("sintering_stress", Scalar, "Sintering stress"),
        parameter("surface_tension", Scalar, "Surface tension", allow_promotion=True),
        parameter("particle_radius", Scalar, "Particle radius", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "particle_radius")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`3\\gamma\\phi^2/r`."""
        return 3.0 * p["surface_tension"] * x["void_fraction"].square() / p["particle_radius"]
