r"""``EffectiveSaturation``: :math:`S = \dfrac{\varphi/\varphi_{max} - S_r}{1 - S_r}`.

:math:`\varphi` = ``fluid_fraction``, :math:`\varphi_{max}` = ``max_fraction`` (promotable),
:math:`S_r` = ``residual_saturation``. Derivatives:
:math:`\partial S/\partial\varphi = 1/(\varphi_{max}(1 - S_r))`,
:math:`\partial S/\partial\varphi_{max} = -\varphi/(\varphi_{max}^2(1 - S_r))`; second
derivatives by hyper-dual arithmetic. :math:`S` is not clamped (as in NEML2 v3).

Construction checks (v3 accepts any value): ``residual_saturation`` outside :math:`[0, 1)` and a
literal ``max_fraction`` :math:`\le 0` are refused (a saturation fraction, and the divisors
:math:`1 - S_r` and :math:`\varphi_{max}`).
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["EffectiveSaturation"]


@register_neml2_object("EffectiveSaturation")
class EffectiveSaturation(ScalarMap):
    """Effective saturation (phi/phi_max - Sr)/(1 - Sr)."""

    OUTPUT = "effective_saturation"
    INPUTS = ("fluid_fraction",)
    PARAMS = ("residual_saturation", "max_fraction")
    hit = HitSchema(
        input("fluid_fraction", Scalar, "Fluid volume fraction phi"),
        output("effective_saturation", Scalar, "Effective saturation S"),
        parameter("residual_saturation", Scalar, "Residual saturation Sr, in [0, 1)"),
        parameter("max_fraction", Scalar, "Maximum fluid fraction phi_max (> 0)",
                  allow_promotion=True),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_literal(
            self, "residual_saturation", lambda t: (t >= 0) & (t < 1), "must be in [0, 1)"
        )
        check_literal(self, "max_fraction", lambda t: t > 0, "must be positive")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Effective saturation."""
        sr = p["residual_saturation"]
        return (x["fluid_fraction"] / p["max_fraction"] - sr) / (1.0 - sr)
