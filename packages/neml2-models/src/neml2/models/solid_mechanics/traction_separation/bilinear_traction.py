r"""``BilinearTraction``: bilinear cohesive law with irreversible scalar damage.

With the effective separation :math:`\delta_m`, critical (onset) separation :math:`\delta_c` and
full separation :math:`\delta_f`,

.. math::
   d^* = \begin{cases} 0 & \delta_m < \delta_c \\
   \dfrac{\delta_f(\delta_m - \delta_c)}{\delta_m(\delta_f - \delta_c)} & \delta_m < \delta_f \\
   1 & \text{otherwise}\end{cases}, \qquad d = \max(d^*, d_n),

.. math::  T = K(1-d)(\delta_n, \delta_{s1}, \delta_{s2}) + (K\delta_{pen}, 0, 0)

(:math:`d_n` = ``<damage>~1``; the penetration term only with ``normal_penetration``). Unloading
follows the secant :math:`K(1-d)` back to the origin. Softening-branch derivatives:
:math:`\partial d^*/\partial\delta_m = \delta_f\delta_c/(\delta_m^2(\delta_f-\delta_c))`,
:math:`\partial d^*/\partial\delta_c = \delta_f(\delta_m-\delta_f)/(\delta_m(\delta_f-\delta_c)^2)`,
:math:`\partial d^*/\partial\delta_f = -\delta_c(\delta_m-\delta_c)/(\delta_m(\delta_f-\delta_c)^2)`;
:math:`\partial T/\partial d = -K(\delta_n, \delta_{s1}, \delta_{s2})`.
"""

from __future__ import annotations

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
from neml2.schema import HitSchema, derived_input, input, output, parameter
from neml2.tensors import Scalar, Vec, gt, lt, where

__all__ = ["BilinearTraction"]


@register_neml2_object("BilinearTraction")
class BilinearTraction(Model):
    """Bilinear (linear softening) traction-separation law with irreversible damage."""

    hit = (
        HitSchema(input("effective_separation", Scalar, "Effective (mixed-mode) separation delta_m"))
        + SEPARATION_INPUTS
        + HitSchema(
            derived_input("damage", Scalar, suffix="~1"),
            output("traction", Vec, "Traction vector"),
            output("damage", Scalar, "Damage d"),
            parameter("penalty_stiffness", Scalar, "Penalty (initial) stiffness K"),
            parameter("critical_separation", Scalar, "Critical (onset) separation delta_c",
                      allow_promotion=True),
            parameter("full_separation", Scalar, "Full separation delta_f", allow_promotion=True),
        )
    )  # fmt: skip

    normal_penetration: str | None

    def __post_init__(self) -> None:
        check_sign(self, ("penalty_stiffness", "critical_separation", "full_separation"))
        if self.promoted_input("critical_separation") is None and (
            self.promoted_input("full_separation") is None
        ):
            dc = self._get_param("critical_separation").data
            df = self._get_param("full_separation").data
            if bool((df <= dc).any()):
                raise ValueError(
                    f"option 'full_separation': must exceed 'critical_separation' "
                    f"(got {df.flatten()[:6].tolist()} <= {dc.flatten()[:6].tolist()})"
                )

    def forward(self, *args: Any, v: Any = None) -> Any:
        """Traction, damage and (with ``v``) their tangents."""
        (dm, dn), pen, (s1, s2, d_old), promoted = split_penetration(self, args, 2, 3)
        k = self._get_param("penalty_stiffness")
        dc = self._get_param("critical_separation", promoted)
        df = self._get_param("full_separation", promoted)
        opened = gt(dm, 0.0)
        dm_safe = where(opened, dm, 1.0)
        span = df - dc
        soft = where(lt(dm, dc), 0.0, where(lt(dm, df), indicator(opened, dm), 0.0))
        d_star = where(lt(dm, dc), 0.0, where(lt(dm, df), df * (dm - dc) / (dm_safe * span), 1.0))
        growing = gt(d_star, d_old)
        d = where(growing, d_star, d_old)
        e0, e1, e2 = basis(dm)
        jump = dn * e0 + s1 * e1 + s2 * e2
        t = (k * (1.0 - d)) * jump
        if pen is not None:
            t = t + (k * pen) * e0
        if v is None:
            return t, d
        grows = indicator(growing, dm)
        c = grows * soft / (dm_safe * span)
        dd: dict[str, Any] = {
            "effective_separation": lambda x: (c * df * dc / dm_safe) * x,
            "damage~1": lambda x: (1.0 - grows) * x,
        }
        add_action(
            dd,
            self.promoted_input("critical_separation"),
            lambda x: (c * df * (dm - df) / span) * x,
        )
        add_action(dd, self.promoted_input("full_separation"),
                   lambda x: (-c * dc * (dm - dc) / span) * x)  # fmt: skip
        kd = k * (1.0 - d)
        dt: dict[str, Any] = {key: (lambda x, f=f: -k * f(x) * jump) for key, f in dd.items()}
        add_action(dt, "normal_separation", lambda x: (kd * x) * e0)
        add_action(dt, "tangential_separation_1", lambda x: (kd * x) * e1)
        add_action(dt, "tangential_separation_2", lambda x: (kd * x) * e2)
        if pen is not None:
            add_action(dt, "normal_penetration", lambda x: (k * x) * e0)
        (vt,) = self.propagate_tangents(v, "traction", dt, output=t)
        (vd,) = self.propagate_tangents(v, "damage", dd, output=d)
        return t, d, {**vt, **vd}
