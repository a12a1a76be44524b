r"""``IrreversibleScalar``: a ratchet that never decreases,

.. math::  y = \begin{cases} x & x > y_n \\ y_n & \text{otherwise} \end{cases}

with :math:`y_n` = ``<to>~1``. Derivatives: :math:`\partial y/\partial x = H`,
:math:`\partial y/\partial y_n = 1 - H` with :math:`H = [x > y_n]`; second derivatives vanish.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, derived_input, input, output
from neml2.tensors import Scalar, gt, where

__all__ = ["IrreversibleScalar"]


@register_neml2_object("IrreversibleScalar")
class IrreversibleScalar(Model):
    """Irreversible (monotonically non-decreasing) copy: y = max(x, y~1)."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("from", Scalar, "Driving variable x", attr="from_var"),
        derived_input("to", Scalar, suffix="~1"),
        output("to", Scalar, "Irreversible variable y", attr="to_var"),
    )

    def forward(self, x: Any, y_old: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Ratcheted value and (with ``v``) its tangents."""
        grows = gt(x, y_old)
        y = where(grows, x, y_old)
        if v is None:
            return y
        actions = {
            "from": lambda d: where(grows, d, 0.0),
            "to~1": lambda d: where(grows, 0.0, d),
        }
        return y, *self.propagate_tangents(v, "to", actions, output=y, v2=v2, vh=vh)
