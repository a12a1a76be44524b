r"""``RotationMatrix``: :math:`R = R(r)` of modified Rodrigues parameters (Euler–Rodrigues).

With :math:`s = |r|^2` and :math:`W` the skew matrix of :math:`r`:
:math:`R = I + [4(1 - s) W + 8 W^2] / (1 + s)^2`; tangents by exact differentiation of this
formula (``jvp_euler_rodrigues``).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import MRP, R2, euler_rodrigues, jvp_euler_rodrigues

__all__ = ["RotationMatrix"]


@register_neml2_object("RotationMatrix")
class RotationMatrix(Model):
    """Rotation matrix (R2) of an orientation given as MRP."""

    hit = HitSchema(
        input("from", MRP, "Orientation r (modified Rodrigues parameters)", attr="from_var"),
        output("to", R2, "Rotation matrix R", attr="to_var"),
    )

    def forward(self, r: Any, *, v: Any = None) -> Any:
        """Rotation matrix and (with ``v``) its tangents."""
        R = euler_rodrigues(r)
        if v is None:
            return R
        actions = {"from": lambda d: jvp_euler_rodrigues(r, d)}
        return R, *self.propagate_tangents(v, "to", actions, output=R)
