r"""``AssociativeJ2FlowDirection``: :math:`N = \tfrac{3}{2}\,\mathrm{dev}(M)/\sigma_{vm}`.

:math:`\sigma_{vm} = \sqrt{3/2}\,\sqrt{\lVert\mathrm{dev}\,M\rVert^2 + \epsilon}` (:math:`\epsilon`
= machine epsilon). With :math:`s = \mathrm{dev}\,M`, :math:`r = \sqrt{s:s + \epsilon}` and
:math:`c = \sqrt{3/2}`: :math:`N = c\,s/r` and
:math:`\dot N = c\,(\mathrm{dev}\,\dot M/r - s\,(s:\mathrm{dev}\,\dot M)/r^3)`.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, dev, inner, sqrt

__all__ = ["AssociativeJ2FlowDirection"]

_C = math.sqrt(1.5)


@register_neml2_object("AssociativeJ2FlowDirection")
class AssociativeJ2FlowDirection(Model):
    """J2 (von Mises) associative flow direction."""

    hit = HitSchema(
        input("mandel_stress", SR2, "Mandel stress"),
        output("flow_direction", SR2, "Flow direction"),
    )

    def forward(self, m: Any, v: Any = None) -> Any:
        """Flow direction and (with ``v``) its tangents."""
        s = dev(m)
        r = sqrt(inner(s, s) + torch.finfo(m.data.dtype).eps)
        n = (_C / r) * s
        if v is None:
            return n
        r3 = r * r * r

        def act(d: Any) -> Any:
            sd = dev(d)
            return (_C / r) * sd - (_C * inner(s, sd) / r3) * s

        return n, *self.propagate_tangents(v, "flow_direction", {"mandel_stress": act}, output=n)
