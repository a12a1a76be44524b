r"""``MixedControlSetup``: per-component selection for mixed stress/strain control.

For every Mandel component :math:`k`, :math:`c_k = [\text{control}_k > \text{threshold}]`:

.. math::  y_k = c_k\, x^{above}_k + (1 - c_k)\, x^{below}_k, \qquad
           z_k = (1 - c_k)\, x^{above}_k + c_k\, x^{below}_k .

The outputs are linear in ``x_above``/``x_below`` (masks :math:`c`, :math:`1 - c`) and
piecewise constant in ``control`` (zero derivative).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import SR2, gt, where

__all__ = ["MixedControlSetup"]


@register_neml2_object("MixedControlSetup")
class MixedControlSetup(Model):
    """Select per component between two SR2 variables according to a control signal."""

    threshold: float
    hit = HitSchema(
        input("control", SR2, "Control signal (component > threshold selects x_above for y)"),
        input("x_above", SR2, "Values used for y where control > threshold"),
        input("x_below", SR2, "Values used for y where control <= threshold"),
        output("y", SR2, "Selected variable"),
        output("z", SR2, "Complementary selection"),
        option("threshold", float, "Control threshold", default="0.5"),
    )

    def __post_init__(self) -> None:
        try:
            self.threshold = float(self.threshold)
        except (TypeError, ValueError):
            raise ValueError(
                f"option 'threshold': expected a number, got {self.threshold!r}"
            ) from None

    def forward(self, control: Any, above: Any, below: Any, *, v: Any = None) -> Any:
        """Both selections and (with ``v``) their tangents."""
        c = gt(control, self.threshold)
        y = where(c, above, below)
        z = where(c, below, above)
        if v is None:
            return y, z
        one = SR2.ones(dtype=y.dtype, device=y.device)
        zero = SR2.zeros(dtype=y.dtype, device=y.device)
        m, mc = where(c, one, zero), where(c, zero, one)
        vy = self.apply_chain_rule(
            v, "y", {"x_above": lambda d: m * d, "x_below": lambda d: mc * d}, output=y
        )
        vz = self.apply_chain_rule(
            v, "z", {"x_above": lambda d: mc * d, "x_below": lambda d: m * d}, output=z
        )
        return y, z, {**vy, **vz}
