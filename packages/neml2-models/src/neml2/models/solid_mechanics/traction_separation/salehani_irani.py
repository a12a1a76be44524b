r"""``SalehaniIraniTraction``: exponential (Salehani-Irani) cohesive law with irreversible damage.

With :math:`b_n = \delta_n/\delta_{n0}`, :math:`b_{si} = \delta_{si}/(\sqrt2\,\delta_{t0})` and
:math:`x = b_n + b_{s1}^2 + b_{s2}^2`:

.. math::
   d = \max(1 - e^{-x}, d_n), \qquad
   T = (1-d)\,F + (K_{pen}\delta_{pen}, 0, 0), \quad
   F = (e\,T_n b_n,\; \sqrt{2e}\,T_t b_{s1},\; \sqrt{2e}\,T_t b_{s2})

(:math:`e` Euler's number, :math:`T_n, T_t` the normal / shear strengths, :math:`d_n` =
``<damage>~1``). Derivatives: :math:`\partial d/\partial x = e^{-x}` while damage grows, else
:math:`\partial d/\partial d_n = 1`; :math:`\partial T = (1-d)\,\partial F - F\,\partial d`.
"""

from __future__ import annotations

import math
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.traction_separation._helpers import (
    SEPARATION_INPUTS,
    basis,
    indicator,
    split_penetration,
)
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, derived_input, output, parameter
from neml2.tensors import Scalar, Vec, exp, gt, where

__all__ = ["SalehaniIraniTraction"]

_SQRT2 = math.sqrt(2.0)
_SQRT2E = math.sqrt(2.0 * math.e)


@register_neml2_object("SalehaniIraniTraction")
class SalehaniIraniTraction(Model):
    """Exponential traction-separation law of Salehani and Irani with irreversible damage."""

    hit = SEPARATION_INPUTS + HitSchema(
        derived_input("damage", Scalar, suffix="~1"),
        output("traction", Vec, "Traction vector"),
        output("damage", Scalar, "Damage d"),
        parameter("normal_characteristic_length", Scalar, "Normal characteristic length delta_n0"),
        parameter("tangential_characteristic_length", Scalar,
                  "Tangential characteristic length delta_t0"),
        parameter("normal_strength", Scalar, "Normal strength T_n"),
        parameter("shear_strength", Scalar, "Shear strength T_t"),
        parameter("penalty_stiffness", Scalar, "Penetration penalty stiffness K_pen", default="0"),
    )  # fmt: skip

    normal_penetration: str | None

    def __post_init__(self) -> None:
        check_sign(self, ("normal_characteristic_length", "tangential_characteristic_length",
                          "normal_strength", "shear_strength"))  # fmt: skip
        check_sign(self, ("penalty_stiffness",), allow_zero=True)

    def forward(self, *args: Any, v: Any = None) -> Any:
        """Traction, damage and (with ``v``) their tangents."""
        (dn,), pen, (s1, s2, d_old), _ = split_penetration(self, args, 1, 3)
        ln = self._get_param("normal_characteristic_length")
        lt_ = _SQRT2 * self._get_param("tangential_characteristic_length")
        tn = math.e * self._get_param("normal_strength")
        tt = _SQRT2E * self._get_param("shear_strength")
        bn, b1, b2 = dn / ln, s1 / lt_, s2 / lt_
        decay = exp(-(bn + b1 * b1 + b2 * b2))
        growing = gt(1.0 - decay, d_old)
        d = where(growing, 1.0 - decay, d_old)
        e0, e1, e2 = basis(dn)
        f = (tn * bn) * e0 + (tt * b1) * e1 + (tt * b2) * e2
        t = (1.0 - d) * f
        if pen is not None:
            t = t + (self._get_param("penalty_stiffness") * pen) * e0
        if v is None:
            return t, d
        grows = indicator(growing, dn)
        c = grows * decay
        dd: dict[str, Any] = {
            "normal_separation": lambda x: (c / ln) * x,
            "tangential_separation_1": lambda x: (2.0 * c * b1 / lt_) * x,
            "tangential_separation_2": lambda x: (2.0 * c * b2 / lt_) * x,
            "damage~1": lambda x: (1.0 - grows) * x,
        }
        dt: dict[str, Any] = {key: (lambda x, g=g: -g(x) * f) for key, g in dd.items()}
        w = 1.0 - d
        add_action(dt, "normal_separation", lambda x: (w * tn / ln * x) * e0)
        add_action(dt, "tangential_separation_1", lambda x: (w * tt / lt_ * x) * e1)
        add_action(dt, "tangential_separation_2", lambda x: (w * tt / lt_ * x) * e2)
        if pen is not None:
            kp = self._get_param("penalty_stiffness")
            add_action(dt, "normal_penetration", lambda x: (kp * x) * e0)
        (vt,) = self.propagate_tangents(v, "traction", dt, output=t)
        (vd,) = self.propagate_tangents(v, "damage", dd, output=d)
        return t, d, {**vt, **vd}
