r"""``ArrheniusParameter``: :math:`p = p_0 \exp\left(-\frac{Q}{R T}\right)`.

:math:`p_0` = ``reference_value``, :math:`Q` = ``activation_energy``, :math:`R` =
``ideal_gas_constant``, :math:`T` = ``temperature``. The output is named after the block unless
option ``parameter`` renames it. With :math:`k = Q/R`:
:math:`\mathrm{d}p/\mathrm{d}T = p\, k/T^2`,
:math:`\mathrm{d}^2p/\mathrm{d}T^2 = p\,(k^2/T^4 - 2k/T^3)`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import BLOCK_NAME, HitSchema, input, option, output, parameter
from neml2.tensors import Scalar, exp

__all__ = ["ArrheniusParameter"]


@register_neml2_object("ArrheniusParameter")
class ArrheniusParameter(Model):
    """Arrhenius-type temperature dependence p0 exp(-Q / (R T))."""

    SUPPORTS_SECOND_ORDER = True
    ideal_gas_constant: float
    hit = HitSchema(
        input("temperature", Scalar, "Temperature T"),
        output("parameter", Scalar, "The parameter p (defaults to the block name)",
               default=BLOCK_NAME),
        parameter("reference_value", Scalar, "Reference value p0"),
        parameter("activation_energy", Scalar, "Activation energy Q"),
        option("ideal_gas_constant", float, "Ideal gas constant R"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.ideal_gas_constant == 0.0:
            raise ValueError("option 'ideal_gas_constant': must be nonzero")

    def forward(self, T: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The parameter value and (with ``v``) its first and second tangents."""
        p0 = self._get_param("reference_value")
        k = self._get_param("activation_energy") / self.ideal_gas_constant
        p = p0 * exp(-k / T)
        if v is None:
            return p
        g = p * k / (T * T)
        h = g * (k / T - 2.0) / T
        return p, *self.propagate_tangents(
            v, "parameter", {"temperature": lambda d: g * d}, output=p, v2=v2, vh=vh,
            actions_2={("temperature", "temperature"): lambda a, b: h * a * b},
        )  # fmt: skip
