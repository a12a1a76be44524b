r"""``CamanhoDavilaCriticalSeparation``: mixed-mode damage-onset separation (Camanho-Davila).

With :math:`\delta_{n0} = N/K`, :math:`\delta_{s0} = S/K` (normal / shear strength over the
penalty stiffness) and :math:`D = \delta_{s0}^2 + \beta^2\delta_{n0}^2 + \epsilon`:

.. math::
   \delta_c = \begin{cases} \delta_{n0}\delta_{s0}\sqrt{1+\beta^2}/\sqrt{D} & \delta_n > 0 \\
   \delta_{s0} & \text{otherwise} \end{cases}

Derivative (open branch): :math:`\partial\delta_c/\partial\beta =
\delta_c\,\beta\,[1/(1+\beta^2) - \delta_{n0}^2/D]`; :math:`\delta_n` only selects the branch.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.traction_separation._helpers import check_distinct
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, gt, sqrt, where

__all__ = ["CamanhoDavilaCriticalSeparation"]


@register_neml2_object("CamanhoDavilaCriticalSeparation")
class CamanhoDavilaCriticalSeparation(Model):
    """Mixed-mode critical (damage onset) separation of Camanho and Davila."""

    hit = HitSchema(
        input("normal_separation", Scalar, "Normal separation (selects open / closed branch)"),
        output("critical_separation", Scalar, "Critical separation delta_c"),
        parameter("mode_mixity", Scalar, "Mode mixity beta", allow_promotion=True),
        parameter("penalty_stiffness", Scalar, "Penalty stiffness K"),
        parameter("normal_strength", Scalar, "Normal strength N"),
        parameter("shear_strength", Scalar, "Shear strength S"),
    )

    def __post_init__(self) -> None:
        check_sign(self, ("penalty_stiffness", "normal_strength", "shear_strength"))
        names = {"normal_separation": self.normal_separation,
                 "critical_separation": self.critical_separation}  # fmt: skip
        check_distinct(self, "mode_mixity", names)

    def forward(self, dn: Any, *promoted: Any, v: Any = None) -> Any:
        """Critical separation and (with ``v``) its tangents."""
        beta = self._get_param("mode_mixity", promoted)
        k = self._get_param("penalty_stiffness")
        dn0 = self._get_param("normal_strength") / k
        ds0 = self._get_param("shear_strength") / k
        eps = float(torch.finfo(dn.dtype).eps)
        b2 = beta * beta
        dd = ds0 * ds0 + b2 * dn0 * dn0 + eps
        dc_open = dn0 * ds0 * sqrt(1.0 + b2) / sqrt(dd)
        open_ = gt(dn, 0.0)
        dc = where(open_, dc_open, ds0)
        if v is None:
            return dc
        slope = where(open_, dc_open * beta * (1.0 / (1.0 + b2) - dn0 * dn0 / dd), 0.0)
        actions: dict[str, Any] = {}
        add_action(actions, self.promoted_input("mode_mixity"), lambda d: slope * d)
        return dc, *self.propagate_tangents(v, "critical_separation", actions, output=dc)
