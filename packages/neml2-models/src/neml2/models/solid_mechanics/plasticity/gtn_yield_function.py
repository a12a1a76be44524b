r"""``GTNYieldFunction``: Gurson-Tvergaard-Needleman yield function.

.. math::
   f = \left(\frac{\sigma_e}{\sigma_f}\right)^2
       + 2 q_1 \phi \cosh\left(\frac{q_2 \sigma_p}{2\sigma_f}\right) - (1 + q_3 \phi^2),
   \qquad \sigma_f = \sigma_y + h

with :math:`\sigma_e` the flow invariant, :math:`\sigma_p` the poro invariant, :math:`\phi` the
void fraction and :math:`h` the isotropic hardening (only if ``isotropic_hardening`` is given).
First and second derivatives follow exactly from hyper-dual arithmetic.
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_cosh
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["GTNYieldFunction"]


@register_neml2_object("GTNYieldFunction")
class GTNYieldFunction(ScalarMap):
    """Gurson-Tvergaard-Needleman yield function for porous plasticity."""

    OUTPUT = "yield_function"
    INPUTS = ("flow_invariant", "poro_invariant", "void_fraction", "isotropic_hardening")
    PARAMS = ("yield_stress", "q1", "q2", "q3")
    hit = HitSchema(
        input("flow_invariant", Scalar, "Flow (von Mises) invariant of the stress"),
        input("poro_invariant", Scalar, "Poro (hydrostatic) invariant of the stress"),
        input("void_fraction", Scalar, "Void fraction"),
        input("isotropic_hardening", Scalar, "Isotropic hardening (optional)", default=None),
        output("yield_function", Scalar, "Yield function value"),
        parameter("yield_stress", Scalar, "Yield stress", allow_promotion=True),
        parameter("q1", Scalar, "GTN parameter q1", allow_promotion=True),
        parameter("q2", Scalar, "GTN parameter q2", allow_promotion=True),
        parameter("q3", Scalar, "GTN parameter q3", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """GTN yield function."""
        sf = p["yield_stress"]
        if "isotropic_hardening" in x:
            sf = sf + x["isotropic_hardening"]
        phi = x["void_fraction"]
        u = x["flow_invariant"] / sf
        w = p["q2"] * x["poro_invariant"] / (2.0 * sf)
        return u.square() + 2.0 * p["q1"] * phi * hd_cosh(w) - (1.0 + p["q3"] * phi.square())
