r"""Power-law static recovery of hardening variables.

* ``PowerLawIsotropicHardeningStaticRecovery``: :math:`\dot h = -(|h|/\tau)^{n-1}\,h/\tau`.
* ``PowerLawKinematicHardeningStaticRecovery``: :math:`\dot X = -(\lVert X\rVert/\tau)^{n-1}
  X/\tau` with :math:`\lVert X\rVert = \sqrt{X:X + \epsilon}` (:math:`\epsilon` machine epsilon).
  With :math:`s = (\lVert X\rVert/\tau)^{n-1}/\tau`:
  :math:`\partial_X[\dot X] = -s\,\dot X - (n-1)\,s\,(X:\dot X)\,X/\lVert X\rVert^2`,
  :math:`\partial_\tau = (n/\tau)\,s\,X`, :math:`\partial_n = -s \ln(\lVert X\rVert/\tau)\,X`.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action, require_positive
from neml2.models.solid_mechanics._scalar_function import HyperDual, ScalarMap, hd_pow
from neml2.schema import HitSchema, derived_output, input, parameter
from neml2.tensors import SR2, Scalar, abs, inner, log, pow, sign, sqrt

__all__ = ["PowerLawIsotropicHardeningStaticRecovery", "PowerLawKinematicHardeningStaticRecovery"]


@register_neml2_object("PowerLawIsotropicHardeningStaticRecovery")
class PowerLawIsotropicHardeningStaticRecovery(ScalarMap):
    """Power-law static recovery of isotropic hardening."""

    OUTPUT = "isotropic_hardening_rate"
    INPUTS = ("isotropic_hardening",)
    PARAMS = ("tau", "n")
    hit = HitSchema(
        input("isotropic_hardening", Scalar, "Isotropic hardening"),
        derived_output("isotropic_hardening", Scalar, suffix="_rate"),
        parameter("tau", Scalar, "Recovery rate scale tau", allow_promotion=True),
        parameter("n", Scalar, "Recovery exponent n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "tau")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`-(|h|/\\tau)^{n-1} h/\\tau`."""
        h, tau = x["isotropic_hardening"], p["tau"]
        ah = h.apply(abs, sign, lambda z: 0.0 * z)
        return -(hd_pow(ah / tau, p["n"] - 1.0) * h / tau)


@register_neml2_object("PowerLawKinematicHardeningStaticRecovery")
class PowerLawKinematicHardeningStaticRecovery(Model):
    """Power-law static recovery of a back stress."""

    hit = HitSchema(
        input("back_stress", SR2, "Back stress"),
        derived_output("back_stress", SR2, suffix="_rate"),
        parameter("tau", Scalar, "Recovery rate scale tau", allow_promotion=True),
        parameter("n", Scalar, "Recovery exponent n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "tau")

    def forward(self, x: Any, *promoted: Any, v: Any = None) -> Any:
        """Back stress rate and (with ``v``) its tangents."""
        tau = self._get_param("tau", promoted)
        n = self._get_param("n", promoted)
        r = sqrt(inner(x, x) + torch.finfo(x.data.dtype).eps)
        s = pow(r / tau, n - 1.0) / tau
        y = -s * x
        if v is None:
            return y
        k = (n - 1.0) * s / (r * r)
        actions: dict[str, Any] = {"back_stress": lambda d: -s * d - (k * inner(x, d)) * x}
        add_action(actions, self.promoted_input("tau"), lambda d: (d * (n / tau * s)) * x)
        add_action(actions, self.promoted_input("n"), lambda d: (d * (-s * log(r / tau))) * x)
        return y, *self.propagate_tangents(v, "back_stress_rate", actions, output=y)
