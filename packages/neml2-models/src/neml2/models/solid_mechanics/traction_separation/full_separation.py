r"""Mixed-mode full (final) separation :math:`\delta_f` of a bilinear cohesive law.

With mode mixity :math:`\beta`, critical separation :math:`\delta_c`, penalty stiffness :math:`K`,
fracture toughnesses :math:`G_{Ic}, G_{IIc}`, shear strength :math:`S` and exponent :math:`\eta`:

* ``BenzeggaghKenaneFullSeparation``:
  :math:`\delta_f = \frac{2}{K\delta_c}\left[G_{Ic} + (G_{IIc} - G_{Ic})
  \left(\frac{\beta^2}{1+\beta^2} + \epsilon\right)^\eta\right]`;
* ``PowerLawFullSeparation``:
  :math:`\delta_f = \frac{2(1+\beta^2)}{K\delta_c}\left[G_{Ic}^{-\eta} +
  \left(\frac{\beta^2}{G_{IIc}} + \epsilon\right)^\eta\right]^{-1/\eta}`;

both when the interface is open (:math:`\delta_n > 0`), else pure mode II :math:`\delta_f =
2G_{IIc}/S`. :math:`\epsilon` is the machine epsilon of the dtype. Derivatives (open branch):
:math:`\partial\delta_f/\partial\delta_c = -\delta_f/\delta_c` and the :math:`\beta` derivatives of
the brackets; the normal separation only selects the branch (zero derivative).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.traction_separation._helpers import check_distinct
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, gt, pow, where

__all__ = ["BenzeggaghKenaneFullSeparation", "FullSeparation", "PowerLawFullSeparation"]

_SCHEMA = HitSchema(
    input("normal_separation", Scalar, "Normal separation (selects open / closed branch)"),
    output("full_separation", Scalar, "Full separation delta_f"),
    parameter("mode_mixity", Scalar, "Mode mixity beta", allow_promotion=True),
    parameter("critical_separation", Scalar, "Critical (damage onset) separation delta_c",
              allow_promotion=True),
    parameter("penalty_stiffness", Scalar, "Penalty stiffness K"),
    parameter("mode_I_fracture_toughness", Scalar, "Mode I fracture toughness G_Ic"),
    parameter("mode_II_fracture_toughness", Scalar, "Mode II fracture toughness G_IIc"),
    parameter("shear_strength", Scalar, "Shear strength S"),
    parameter("eta", Scalar, "Mixed-mode exponent eta"),
)  # fmt: skip

_CONSTANTS = ("penalty_stiffness", "mode_I_fracture_toughness", "mode_II_fracture_toughness",
              "shear_strength", "eta")  # fmt: skip


class FullSeparation(Model):
    """Common scaffolding: open/closed branches and the chain rule; subclasses give the law."""

    def __post_init__(self) -> None:
        check_sign(self, (*_CONSTANTS, "critical_separation"))
        for opt in ("mode_mixity", "critical_separation"):
            names = {"normal_separation": self.normal_separation,
                     "full_separation": self.full_separation}  # fmt: skip
            check_distinct(self, opt, names)
        if self.promoted_input("mode_mixity") is not None and (
            self.promoted_input("mode_mixity") == self.promoted_input("critical_separation")
        ):
            raise ValueError(
                "options 'mode_mixity' and 'critical_separation' name the same variable "
                f"'{self.promoted_input('mode_mixity')}'"
            )

    def law(self, beta: Any, eps: float) -> tuple[Any, Any]:
        """``(g, dg/dbeta)``: the open-branch value is ``delta_f = g / (K delta_c)``."""
        raise NotImplementedError(f"{type(self).__name__} must define law()")

    def _toughness(self) -> tuple[Any, Any, Any]:
        """``(G_Ic, G_IIc, eta)``: the fracture toughnesses and the mixed-mode exponent."""
        return (
            self._get_param("mode_I_fracture_toughness"),
            self._get_param("mode_II_fracture_toughness"),
            self._get_param("eta"),
        )

    def forward(self, dn: Any, *promoted: Any, v: Any = None) -> Any:
        """Full separation and (with ``v``) its tangents."""
        beta = self._get_param("mode_mixity", promoted)
        dc = self._get_param("critical_separation", promoted)
        k = self._get_param("penalty_stiffness")
        g2 = self._get_param("mode_II_fracture_toughness")
        s = self._get_param("shear_strength")
        eps = float(torch.finfo(dn.dtype).eps)
        open_ = gt(dn, 0.0)
        coef = 1.0 / (k * dc)
        g, dg = self.law(beta, eps)
        df_open = coef * g
        df = where(open_, df_open, 2.0 * g2 / s)
        if v is None:
            return df
        actions: dict[str, Any] = {}
        add_action(
            actions, self.promoted_input("mode_mixity"), lambda d: where(open_, coef * dg, 0.0) * d
        )
        add_action(actions, self.promoted_input("critical_separation"),
                   lambda d: where(open_, -df_open / dc, 0.0) * d)  # fmt: skip
        return df, *self.propagate_tangents(v, "full_separation", actions, output=df)


@register_neml2_object("BenzeggaghKenaneFullSeparation")
class BenzeggaghKenaneFullSeparation(FullSeparation):
    """Full separation from the Benzeggagh-Kenane (BK) mixed-mode fracture criterion."""

    hit = _SCHEMA

    def law(self, beta: Any, eps: float) -> tuple[Any, Any]:
        """``g = 2 [G_Ic + (G_IIc - G_Ic)(beta^2/(1+beta^2) + eps)^eta]`` and ``dg/dbeta``."""
        g1, g2, eta = self._toughness()
        b2 = beta * beta
        m = b2 / (1.0 + b2) + eps
        p = pow(m, eta)
        g = 2.0 * (g1 + (g2 - g1) * p)
        dm = 2.0 * beta / ((1.0 + b2) * (1.0 + b2))
        dg = 2.0 * (g2 - g1) * eta * pow(m, eta - 1.0) * dm
        return g, dg


@register_neml2_object("PowerLawFullSeparation")
class PowerLawFullSeparation(FullSeparation):
    """Full separation from the power-law mixed-mode fracture criterion."""

    hit = _SCHEMA

    def law(self, beta: Any, eps: float) -> tuple[Any, Any]:
        """``g = 2 (1+beta^2) [G_Ic^-eta + (beta^2/G_IIc + eps)^eta]^(-1/eta)`` and ``dg/dbeta``."""
        g1, g2, eta = self._toughness()
        b2 = beta * beta
        q = b2 / g2 + eps
        p = pow(1.0 / g1, eta) + pow(q, eta)
        w = pow(p, -1.0 / eta)
        g = 2.0 * (1.0 + b2) * w
        dg = g * (2.0 * beta / (1.0 + b2) - pow(q, eta - 1.0) * (2.0 * beta / g2) / p)
        return g, dg
