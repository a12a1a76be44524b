r"""Crack geometric functions :math:`\alpha(d)` of the phase field :math:`d`.

* ``CrackGeometricFunctionAT1``: :math:`\alpha = d`, :math:`\alpha' = 1`, :math:`\alpha'' = 0`
  (normalisation :math:`c_0 = 8/3`, set by the user in the fracture energy).
* ``CrackGeometricFunctionAT2``: :math:`\alpha = d^2`, :math:`\alpha' = 2d`,
  :math:`\alpha'' = 2` (normalisation :math:`c_0 = 2`).

Input ``phase`` (:math:`d`), output ``crack`` (:math:`\alpha`).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import Scalar

__all__ = ["CrackGeometricFunctionAT1", "CrackGeometricFunctionAT2"]

_HIT = HitSchema(
    input("phase", Scalar, "Phase-field (damage) variable d"),
    output("crack", Scalar, "Crack geometric function alpha(d)"),
)


@register_neml2_object("CrackGeometricFunctionAT1")
class CrackGeometricFunctionAT1(Model):
    """AT1 crack geometric function alpha = d."""

    SUPPORTS_SECOND_ORDER = True
    hit = _HIT

    def forward(self, d: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """alpha and (with ``v``) its tangents."""
        a = 1.0 * d
        if v is None:
            return a
        return a, *self.propagate_tangents(
            v, "crack", {"phase": lambda x: x}, output=a, v2=v2, vh=vh
        )


@register_neml2_object("CrackGeometricFunctionAT2")
class CrackGeometricFunctionAT2(Model):
    """AT2 crack geometric function alpha = d^2."""

    SUPPORTS_SECOND_ORDER = True
    hit = _HIT

    def forward(self, d: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """alpha and (with ``v``) its tangents."""
        a = d * d
        if v is None:
            return a
        g = 2.0 * d
        return a, *self.propagate_tangents(
            v, "crack", {"phase": lambda x: g * x}, output=a, v2=v2, vh=vh,
            actions_2={("phase", "phase"): lambda p, q: 2.0 * p * q},
        )  # fmt: skip
