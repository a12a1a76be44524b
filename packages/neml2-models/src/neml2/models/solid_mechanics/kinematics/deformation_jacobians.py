r"""Volume-change Jacobians and volume-adjusted deformation gradients.

* ``ThermalDeformationJacobian``: :math:`J = 1 + \alpha\,(T - T_0)`.
* ``SwellingAndPhaseChangeDeformationJacobian``:
  :math:`J = 1 + \alpha\,c\,\phi + (1 - c)\,\phi\,\Delta\Omega` (:math:`c` phase fraction,
  :math:`\alpha` swelling coefficient, :math:`\Delta\Omega` reference volume difference,
  :math:`\phi` fluid fraction).
* ``VolumeAdjustDeformationGradient``: :math:`F_{out} = J^{-1/3} F`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import R2, Scalar, pow

__all__ = [
    "SwellingAndPhaseChangeDeformationJacobian",
    "ThermalDeformationJacobian",
    "VolumeAdjustDeformationGradient",
]


@register_neml2_object("ThermalDeformationJacobian")
class ThermalDeformationJacobian(ScalarMap):
    """Volume ratio of linear thermal expansion."""

    OUTPUT = "jacobian"
    INPUTS = ("temperature",)
    PARAMS = ("reference_temperature", "CTE")
    hit = HitSchema(
        input("temperature", Scalar, "Temperature"),
        output("jacobian", Scalar, "Deformation Jacobian"),
        parameter("reference_temperature", Scalar, "Reference temperature"),
        parameter("CTE", Scalar, "Coefficient of thermal expansion", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`1 + \\alpha(T - T_0)`."""
        return 1.0 + p["CTE"] * (x["temperature"] - p["reference_temperature"])


@register_neml2_object("SwellingAndPhaseChangeDeformationJacobian")
class SwellingAndPhaseChangeDeformationJacobian(ScalarMap):
    """Volume ratio from swelling and phase change."""

    OUTPUT = "jacobian"
    INPUTS = ("fluid_fraction",)
    PARAMS = ("phase_fraction", "swelling_coefficient", "reference_volume_difference")
    hit = HitSchema(
        input("fluid_fraction", Scalar, "Fluid fraction"),
        output("jacobian", Scalar, "Deformation Jacobian"),
        parameter("phase_fraction", Scalar, "Phase fraction", allow_promotion=True),
        parameter("swelling_coefficient", Scalar, "Swelling coefficient"),
        parameter("reference_volume_difference", Scalar, "Reference volume difference"),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`1 + \\alpha c \\phi + (1 - c)\\phi\\Delta\\Omega`."""
        c, phi = p["phase_fraction"], x["fluid_fraction"]
        return (
            1.0
            + p["swelling_coefficient"] * c * phi
            + ((1.0 - c) * phi * p["reference_volume_difference"])
        )


@register_neml2_object("VolumeAdjustDeformationGradient")
class VolumeAdjustDeformationGradient(Model):
    """Deformation gradient with the volume change :math:`J` removed."""

    hit = HitSchema(
        input("input", R2, "Deformation gradient"),
        input("jacobian", Scalar, "Volume change Jacobian"),
        output("output", R2, "Adjusted deformation gradient"),
    )

    def forward(self, f: Any, j: Any, v: Any = None) -> Any:
        """:math:`J^{-1/3}F` and (with ``v``) its tangents."""
        s = pow(j, -1.0 / 3.0)
        y = s * f
        if v is None:
            return y
        ds = (-1.0 / 3.0) * s / j
        actions = {"input": lambda d: s * d, "jacobian": lambda d: (d * ds) * f}
        return y, *self.propagate_tangents(v, "output", actions, output=y)
