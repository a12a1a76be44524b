r"""``YieldFunction``: :math:`f = \sqrt{2/3}\,(\bar\sigma - \sigma_y - h)`.

:math:`\bar\sigma` is the effective stress, :math:`\sigma_y` the (promotable) yield stress and
:math:`h` the isotropic hardening (only when ``isotropic_hardening`` is given). The map is linear,
so all second derivatives vanish.
"""

from __future__ import annotations

import math
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["YieldFunction"]

_C = math.sqrt(2.0 / 3.0)


@register_neml2_object("YieldFunction")
class YieldFunction(Model):
    """J2-type yield function with optional isotropic hardening."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("effective_stress", Scalar, "Effective stress"),
        input("isotropic_hardening", Scalar, "Isotropic hardening (optional)", default=None),
        output("yield_function", Scalar, "Yield function value"),
        parameter("yield_stress", Scalar, "Yield stress", allow_promotion=True),
    )

    isotropic_hardening: str | None

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Yield function and (with ``v``) its tangents."""
        n = 1 if self.isotropic_hardening is None else 2
        s, promoted = args[0], args[n:]
        sy = self._get_param("yield_stress", promoted)
        f = s - sy
        if n == 2:
            f = f - args[1]
        f = _C * f
        if v is None:
            return f
        actions: dict[str, Any] = {"effective_stress": scaled_by(_C)}
        if n == 2:
            actions["isotropic_hardening"] = scaled_by(-_C)
        add_action(actions, self.promoted_input("yield_stress"), scaled_by(-_C))
        return f, *self.propagate_tangents(v, "yield_function", actions, output=f, v2=v2, vh=vh)
