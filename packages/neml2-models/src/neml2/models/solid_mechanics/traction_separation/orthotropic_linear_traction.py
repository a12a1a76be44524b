r"""``OrthotropicLinearTraction``: linear elastic interface,

.. math::  T = (K_n\delta_n + K_{pen}\delta_{pen},\; K_t\delta_{s1},\; K_t\delta_{s2})

with the optional normal penetration :math:`\delta_{pen}` (``normal_penetration``, penalised by
``penalty_stiffness``). The map is linear: :math:`\partial T/\partial\delta_n = K_n e_0`,
:math:`\partial T/\partial\delta_{si} = K_t e_i`, :math:`\partial T/\partial\delta_{pen} = K_{pen}e_0`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics.traction_separation._helpers import (
    SEPARATION_INPUTS,
    basis,
    split_penetration,
)
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, output, parameter
from neml2.tensors import Scalar, Vec

__all__ = ["OrthotropicLinearTraction"]


@register_neml2_object("OrthotropicLinearTraction")
class OrthotropicLinearTraction(Model):
    """Linear traction with separate normal and tangential stiffnesses."""

    SUPPORTS_SECOND_ORDER = True
    hit = SEPARATION_INPUTS + HitSchema(
        output("traction", Vec, "Traction vector"),
        parameter("normal_stiffness", Scalar, "Normal stiffness K_n"),
        parameter("tangential_stiffness", Scalar, "Tangential stiffness K_t"),
        parameter("penalty_stiffness", Scalar, "Penetration penalty stiffness K_pen",
                  default="0.0"),
    )  # fmt: skip

    normal_penetration: str | None

    def __post_init__(self) -> None:
        check_sign(self, ("normal_stiffness", "tangential_stiffness"))
        check_sign(self, ("penalty_stiffness",), allow_zero=True)

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Traction and (with ``v``) its tangents."""
        (dn,), pen, (s1, s2), _ = split_penetration(self, args, 1, 2)
        kn = self._get_param("normal_stiffness")
        kt = self._get_param("tangential_stiffness")
        kp = self._get_param("penalty_stiffness")
        e0, e1, e2 = basis(dn)
        tn = kn * dn if pen is None else kn * dn + kp * pen
        t = tn * e0 + (kt * s1) * e1 + (kt * s2) * e2
        if v is None:
            return t
        actions: dict[str, Any] = {
            "normal_separation": lambda d: (kn * d) * e0,
            "tangential_separation_1": lambda d: (kt * d) * e1,
            "tangential_separation_2": lambda d: (kt * d) * e2,
        }
        if pen is not None:
            actions["normal_penetration"] = lambda d: (kp * d) * e0
        return t, *self.propagate_tangents(v, "traction", actions, output=t, v2=v2, vh=vh)
