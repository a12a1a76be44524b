r"""``GreenLagrangeStrain``: :math:`E = \tfrac12(\mathrm{sym}(F^T F) - I)`.

Derivative: :math:`\dot E = \mathrm{sym}(F^T \dot F)`; second derivative
:math:`\mathrm{sym}(\dot F_a^T \dot F_b)` (symmetrised over the pair).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import R2, SR2, sym, transpose

__all__ = ["GreenLagrangeStrain"]


@register_neml2_object("GreenLagrangeStrain")
class GreenLagrangeStrain(Model):
    """Green-Lagrange strain of a deformation gradient."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("deformation_gradient", R2, "Deformation gradient"),
        output("strain", SR2, "Green-Lagrange strain"),
    )

    def forward(self, f: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Strain and (with ``v``) its tangents."""
        ft = transpose(f)
        eye = SR2.identity(f.data.dtype, f.data.device)
        e = 0.5 * (sym(ft @ f) - eye)
        if v is None:
            return e
        actions = {"deformation_gradient": lambda d: sym(ft @ d)}
        actions_2 = {
            ("deformation_gradient", "deformation_gradient"): lambda a, b: sym(transpose(a) @ b)
        }
        return e, *self.propagate_tangents(
            v, "strain", actions, output=e, v2=v2, vh=vh, actions_2=actions_2
        )
