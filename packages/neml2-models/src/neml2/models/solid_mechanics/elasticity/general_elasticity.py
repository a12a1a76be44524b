r"""``GeneralElasticity``: :math:`\sigma = (Q(R)\,T\,Q(R)^T) : \varepsilon`, :math:`R = R(q)`.

:math:`T` is the (promotable) SSR4 ``elastic_stiffness_tensor`` in the crystal frame, :math:`q`
the orientation (MRP) and :math:`Q` the Mandel rotation. Derivatives:
:math:`\partial_\varepsilon = T_R`, :math:`\partial_q[\dot q] = \mathrm{jvp\_rotate}(T, q, \dot q)
: \varepsilon`, :math:`\partial_T[\dot T] = \mathrm{rotate}(\dot T, q) : \varepsilon`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import MRP, SR2, SSR4, jvp_rotate, rotate

__all__ = ["GeneralElasticity"]


@register_neml2_object("GeneralElasticity")
class GeneralElasticity(Model):
    """Anisotropic linear elasticity with a rotated stiffness tensor."""

    hit = HitSchema(
        input("strain", SR2, "Strain"),
        input("orientation", MRP, "Orientation of the material frame (MRP)"),
        output("stress", SR2, "Stress"),
        parameter("elastic_stiffness_tensor", SSR4, "Stiffness tensor in the material frame",
                  allow_promotion=True),
    )  # fmt: skip

    def forward(self, e: Any, q: Any, *promoted: Any, v: Any = None) -> Any:
        """Stress and (with ``v``) its tangents."""
        t = self._get_param("elastic_stiffness_tensor", promoted)
        tr = rotate(t, q)
        s = tr @ e
        if v is None:
            return s
        actions: dict[str, Any] = {
            "strain": lambda d: tr @ d,
            "orientation": lambda d: jvp_rotate(t, q, d) @ e,
        }
        add_action(actions, self.promoted_input("elastic_stiffness_tensor"),
                   lambda d: rotate(d, q) @ e)  # fmt: skip
        return s, *self.propagate_tangents(v, "stress", actions, output=s)
