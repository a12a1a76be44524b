r"""Kinematic hardening laws (back stress :math:`X`).

* ``LinearKinematicHardening``: :math:`X = H\,K_p`.
* ``FredrickArmstrongPlasticHardening``:
  :math:`\dot X = (\tfrac{2}{3} C\,N - g\,X)\,\dot\gamma`.
* ``ChabochePlasticHardening``: :math:`\dot X = (\tfrac{2}{3} C\,N - g\,X)\,\dot\gamma
  - A\,\lVert X\rVert^{a-1} X` with :math:`\lVert X\rVert = \sqrt{X:X + \epsilon}`
  (:math:`\epsilon` = machine epsilon of the dtype).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import product_term, scaled_by
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import SR2, Scalar, inner, log, pow, sqrt

__all__ = [
    "ChabochePlasticHardening",
    "FredrickArmstrongPlasticHardening",
    "LinearKinematicHardening",
]


@register_neml2_object("LinearKinematicHardening")
class LinearKinematicHardening(Model):
    """Back stress linear in the kinematic plastic strain."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("kinematic_plastic_strain", SR2, "Kinematic plastic strain"),
        output("back_stress", SR2, "Back stress"),
        parameter("hardening_modulus", Scalar, "Hardening modulus H", allow_promotion=True),
    )

    def forward(
        self, kp: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None
    ) -> Any:
        """:math:`X = H K_p` and (with ``v``) its tangents."""
        hm = self._get_param("hardening_modulus", promoted)
        x = hm * kp
        if v is None:
            return x
        src = self.promoted_input("hardening_modulus")
        actions: dict[str, Any] = {"kinematic_plastic_strain": lambda d: hm * d}
        add_action(actions, src, lambda d: d * kp)
        actions_2: dict[tuple[str, str], Any] = {}
        if src is not None:
            actions_2[("kinematic_plastic_strain", src)] = lambda a, b: b * a
            actions_2[(src, "kinematic_plastic_strain")] = lambda a, b: a * b
        return x, *self.propagate_tangents(
            v, "back_stress", actions, output=x, v2=v2, vh=vh, actions_2=actions_2
        )


class _ArmstrongFrederick(Model):
    """:math:`\\dot X = (\\tfrac23 C N - g X)\\dot\\gamma` [:math:`- A\\lVert X\\rVert^{a-1}X`]."""

    ACCEPTS_DEFERRED_TANGENTS = True
    RECOVERY = False

    def forward(self, gr: Any, n: Any, x: Any, *promoted: Any, v: Any = None) -> Any:
        """Back stress rate and (with ``v``) its tangents."""
        c = self._get_param("C", promoted)
        g = self._get_param("g", promoted)
        hard = (2.0 / 3.0) * c * n - g * x
        y = hard * gr
        if self.RECOVERY:
            a_ = self._get_param("A", promoted)
            ea = self._get_param("a", promoted)
            eps = torch.finfo(x.data.dtype).eps
            r = sqrt(inner(x, x) + eps)
            s = pow(r, ea - 1.0)
            y = y - (a_ * s) * x
        if v is None:
            return y
        # local derivative coefficients, computed once per call (each action runs once per
        # seed leaf): dy/dN = (2/3) C gr, dy/dX = c_x I - k X (x) X
        c_n = (2.0 / 3.0) * c * gr
        c_x = -g * gr
        actions: dict[str, Any] = {
            "flow_rate": lambda d: product_term(d, hard),
            "flow_direction": scaled_by(c_n),
        }
        add_action(actions, self.promoted_input("C"), lambda d: d * ((2.0 / 3.0) * gr * n))
        add_action(actions, self.promoted_input("g"), lambda d: d * (-gr * x))
        if not self.RECOVERY:
            actions["back_stress"] = scaled_by(c_x)
        else:
            c_x = c_x - a_ * s
            nkx = (-a_ * (ea - 1.0) * pow(r, ea - 3.0)) * x
            actions["back_stress"] = lambda d: (
                product_term(c_x, d),
                product_term(inner(x, d), nkx),
            )
            add_action(actions, self.promoted_input("A"), lambda d: d * (-s * x))
            add_action(actions, self.promoted_input("a"), lambda d: d * (-a_ * s * log(r) * x))
        return y, *self.propagate_tangents(v, "back_stress_rate", actions, output=y)


def _schema(recovery: bool) -> HitSchema:
    fields = [
        input("flow_rate", Scalar, "Flow rate"),
        input("flow_direction", SR2, "Flow direction"),
        input("back_stress", SR2, "Back stress"),
        derived_output("back_stress", SR2, suffix="_rate"),
        parameter("C", Scalar, "Kinematic hardening coefficient", allow_promotion=True),
        parameter("g", Scalar, "Dynamic recovery coefficient", allow_promotion=True),
    ]
    if recovery:
        fields += [
            parameter("A", Scalar, "Static recovery prefactor", allow_promotion=True),
            parameter("a", Scalar, "Static recovery exponent", allow_promotion=True),
        ]
    return HitSchema(*fields)


@register_neml2_object("FredrickArmstrongPlasticHardening")
class FredrickArmstrongPlasticHardening(_ArmstrongFrederick):
    """Frederick-Armstrong back stress evolution (hardening + dynamic recovery)."""

    hit = _schema(False)


@register_neml2_object("ChabochePlasticHardening")
class ChabochePlasticHardening(_ArmstrongFrederick):
    """Chaboche back stress evolution (Frederick-Armstrong + power-law static recovery)."""

    RECOVERY = True
    hit = _schema(True)
