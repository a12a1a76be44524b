r"""Associative flow rules: rates proportional to the flow rate :math:`\dot\gamma`.

* ``AssociativePlasticFlow``: :math:`\dot\varepsilon_p = \dot\gamma\,N`.
* ``AssociativeIsotropicPlasticHardening``: :math:`\dot{\bar\varepsilon}_p = -\dot\gamma\,N_h`
  (:math:`N_h = \partial f/\partial h`).
* ``AssociativeKinematicPlasticHardening``: :math:`\dot K_p = -\dot\gamma\,N_X`
  (:math:`N_X = \partial f/\partial X`).

All three are bilinear :math:`y = s\,\dot\gamma\,N` (:math:`s = \pm 1`); the only second
derivative is the mixed one, :math:`s\,\delta\dot\gamma\,\delta N`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import product_term, scaled_by
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, Scalar

__all__ = [
    "AssociativeIsotropicPlasticHardening",
    "AssociativeKinematicPlasticHardening",
    "AssociativePlasticFlow",
]


class _Bilinear(Model):
    """:math:`y = s\\,\\dot\\gamma\\,N` with inputs (flow_rate, direction)."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    SIGN = 1.0
    DIRECTION = ""
    OUTPUT = ""

    def forward(self, g: Any, n: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Rate and (with ``v``) its tangents."""
        s = self.SIGN
        y = (s * g) * n
        if v is None:
            return y
        d = self.DIRECTION
        sn, sg = s * n, s * g
        actions: dict[str, Any] = {"flow_rate": lambda t: product_term(t, sn), d: scaled_by(sg)}
        actions_2 = {
            ("flow_rate", d): lambda a, b: (s * a) * b,
            (d, "flow_rate"): lambda a, b: (s * b) * a,
        }
        return y, *self.propagate_tangents(
            v, self.OUTPUT, actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("AssociativePlasticFlow")
class AssociativePlasticFlow(_Bilinear):
    """Plastic strain rate along the flow direction."""

    DIRECTION = "flow_direction"
    OUTPUT = "plastic_strain_rate"
    hit = HitSchema(
        input("flow_rate", Scalar, "Flow rate"),
        input("flow_direction", SR2, "Flow direction"),
        output("plastic_strain_rate", SR2, "Plastic strain rate"),
    )


@register_neml2_object("AssociativeIsotropicPlasticHardening")
class AssociativeIsotropicPlasticHardening(_Bilinear):
    """Equivalent plastic strain rate from the isotropic hardening direction."""

    SIGN = -1.0
    DIRECTION = "isotropic_hardening_direction"
    OUTPUT = "equivalent_plastic_strain_rate"
    hit = HitSchema(
        input("flow_rate", Scalar, "Flow rate"),
        input("isotropic_hardening_direction", Scalar, "Isotropic hardening direction"),
        output("equivalent_plastic_strain_rate", Scalar, "Equivalent plastic strain rate"),
    )


@register_neml2_object("AssociativeKinematicPlasticHardening")
class AssociativeKinematicPlasticHardening(_Bilinear):
    """Kinematic plastic strain rate from the kinematic hardening direction."""

    SIGN = -1.0
    DIRECTION = "kinematic_hardening_direction"
    OUTPUT = "kinematic_plastic_strain_rate"
    hit = HitSchema(
        input("flow_rate", Scalar, "Flow rate"),
        input("kinematic_hardening_direction", SR2, "Kinematic hardening direction"),
        output("kinematic_plastic_strain_rate", SR2, "Kinematic plastic strain rate"),
    )
