r"""``IsotropicMandelStress``: :math:`M = \sigma` (small strain, isotropic material)."""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2

__all__ = ["IsotropicMandelStress"]


@register_neml2_object("IsotropicMandelStress")
class IsotropicMandelStress(Model):
    """Mandel stress equal to the Cauchy stress."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("cauchy_stress", SR2, "Cauchy stress"),
        output("mandel_stress", SR2, "Mandel stress"),
    )

    def forward(self, s: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """:math:`M = \\sigma` (identity map)."""
        m = SR2._wrap(s.data, s.sub_batch_ndim, s.sub_batch_state, s.sub_batch_meta)
        if v is None:
            return m
        actions = {"cauchy_stress": lambda d: d}
        return m, *self.propagate_tangents(v, "mandel_stress", actions, output=m, v2=v2, vh=vh)
