r"""Isotropic hardening laws.

* ``LinearIsotropicHardening``: :math:`h = K\,\bar\varepsilon_p`.
* ``VoceIsotropicHardening``: :math:`h = R\,(1 - e^{-d\,\bar\varepsilon_p})`.
* ``SlopeSaturationVoceIsotropicHardening``:
  :math:`\dot h = \mathrm{sign}(R)\,\theta_0\,(1 - h/R)\,\dot\gamma`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_exp
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action, add_action_2
from neml2.schema import HitSchema, derived_output, input, output, parameter
from neml2.tensors import Scalar, sign

__all__ = [
    "LinearIsotropicHardening",
    "SlopeSaturationVoceIsotropicHardening",
    "VoceIsotropicHardening",
]


@register_neml2_object("LinearIsotropicHardening")
class LinearIsotropicHardening(Model):
    """Isotropic hardening linear in the equivalent plastic strain."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("equivalent_plastic_strain", Scalar, "Equivalent plastic strain"),
        output("isotropic_hardening", Scalar, "Isotropic hardening"),
        parameter("hardening_modulus", Scalar, "Hardening modulus K", allow_promotion=True),
    )

    def forward(
        self, ep: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None
    ) -> Any:
        """:math:`h = K\\bar\\varepsilon_p` and (with ``v``) its tangents."""
        k = self._get_param("hardening_modulus", promoted)
        h = k * ep
        if v is None:
            return h
        src = self.promoted_input("hardening_modulus")
        actions: dict[str, Any] = {"equivalent_plastic_strain": scaled_by(k)}
        add_action(actions, src, lambda d: d * ep)
        actions_2: dict[tuple[str, str], Any] = {}
        add_action_2(actions_2, "equivalent_plastic_strain", src, lambda a, b: a * b)
        return h, *self.propagate_tangents(
            v, "isotropic_hardening", actions, output=h, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("VoceIsotropicHardening")
class VoceIsotropicHardening(ScalarMap):
    """Voce (exponentially saturating) isotropic hardening."""

    OUTPUT = "isotropic_hardening"
    INPUTS = ("equivalent_plastic_strain",)
    PARAMS = ("saturated_hardening", "saturation_rate")
    hit = HitSchema(
        input("equivalent_plastic_strain", Scalar, "Equivalent plastic strain"),
        output("isotropic_hardening", Scalar, "Isotropic hardening"),
        parameter("saturated_hardening", Scalar, "Saturated hardening R", allow_promotion=True),
        parameter("saturation_rate", Scalar, "Saturation rate d", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`h = R(1 - e^{-d\\bar\\varepsilon_p})`."""
        e = hd_exp(-(p["saturation_rate"] * x["equivalent_plastic_strain"]))
        return p["saturated_hardening"] * (1.0 - e)


@register_neml2_object("SlopeSaturationVoceIsotropicHardening")
class SlopeSaturationVoceIsotropicHardening(ScalarMap):
    """Voce hardening in rate form with a prescribed initial slope."""

    OUTPUT = "isotropic_hardening_rate"
    INPUTS = ("flow_rate", "isotropic_hardening")
    PARAMS = ("saturated_hardening", "initial_hardening_rate")
    hit = HitSchema(
        input("flow_rate", Scalar, "Flow rate"),
        input("isotropic_hardening", Scalar, "Isotropic hardening"),
        derived_output("isotropic_hardening", Scalar, suffix="_rate"),
        parameter("saturated_hardening", Scalar, "Saturated hardening R", allow_promotion=True),
        parameter("initial_hardening_rate", Scalar, "Initial hardening rate theta0",
                  allow_promotion=True),
    )  # fmt: skip

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\dot h = \\mathrm{sign}(R)\\theta_0(1 - h/R)\\dot\\gamma`."""
        r = p["saturated_hardening"]
        sr = sign(r.v)
        rate: HyperDual = p["initial_hardening_rate"] * sr
        ratio: HyperDual = x["isotropic_hardening"] / r
        return rate * (1.0 - ratio) * x["flow_rate"]
