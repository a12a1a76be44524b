r"""Reaction in a cylindrical channel: the channel geometry and the diffusion-limited rate.

A unit cylindrical cell holds a solid annulus (volume fraction :math:`\varphi_s`) lined on its
inside by a reaction-product layer (:math:`\varphi_p`) around an open channel.

``CylindricalChannelGeometry``: inner radius of the product layer (the open channel) and outer
radius of the product layer (the inner radius of the solid), with
:math:`x = \mathrm{clamp}(1 - \varphi_s - \varphi_p, \epsilon, 1 - \epsilon)`:

.. math::  r_i = \sqrt{x}, \qquad r_o = \sqrt{1 - \varphi_s}, \qquad
   \frac{\partial r_i}{\partial \varphi_s} = \frac{\partial r_i}{\partial \varphi_p}
   = -\frac{H}{2 r_i}, \qquad \frac{\partial r_o}{\partial \varphi_s} = -\frac{1}{2 r_o},

second derivatives :math:`-H/(4 r_i^3)` and :math:`-1/(4 r_o^3)`. As in NEML2 v3, the mask
:math:`H` is 0 only where the lower clamp is active (:math:`1 - \varphi_s - \varphi_p \le
\epsilon`), 1 elsewhere (also above :math:`1 - \epsilon`); :math:`r_o` is not clamped.

``DiffusionLimitedReaction``: the rate of a reaction limited by diffusion of the liquid reactant
through the product layer between :math:`r_i` (``product_inner_radius``) and :math:`r_o`
(``solid_inner_radius``), with diffusion coefficient :math:`D`, reactivities :math:`R_l, R_s`,
molar volume :math:`\omega` and a small layer thickness :math:`\delta`
(``product_dummy_thickness``) that keeps the rate finite when no product has formed:

.. math::  r = \frac{2 D R_l R_s}{\omega} \frac{r_o}{r_o - r_i + \delta}.

Its first and second derivatives (including a promoted :math:`D`) follow by hyper-dual
arithmetic. Construction checks (v3 accepts any value): ``molar_volume`` must be positive,
``product_dummy_thickness`` non-negative and a constant ``diffusion_coefficient`` non-negative.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal, check_option_value
from neml2.models._scalar_function import HyperDual, ScalarMap
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output, parameter
from neml2.tensors import Scalar, clamp, gt, sqrt, where

__all__ = ["CylindricalChannelGeometry", "DiffusionLimitedReaction"]


@register_neml2_object("CylindricalChannelGeometry")
class CylindricalChannelGeometry(Model):
    """Inner and outer radii of the product layer lining a cylindrical channel."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("solid_fraction", Scalar, "Volume fraction of the solid phi_s"),
        input("product_fraction", Scalar, "Volume fraction of the product phi_p"),
        output("inner_radius", Scalar, "Inner radius of the product layer r_i"),
        output("outer_radius", Scalar, "Outer radius of the product layer r_o"),
    )

    def forward(self, phs: Any, php: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Both radii and (with ``v``) their tangents."""
        x = 1.0 - phs - php
        eps = torch.finfo(x.dtype).eps
        ri = sqrt(clamp(x, eps, 1.0 - eps))
        ro = sqrt(1.0 - phs)
        if v is None:
            return ri, ro
        gi = where(gt(x, eps), -0.5 / ri, 0.0 * ri)
        hi = 0.5 * gi / (ri * ri)
        go = -0.5 / ro
        ho = 0.5 * go / (ro * ro)
        pair = ("solid_fraction", "product_fraction")
        res_i = self.propagate_tangents(
            v, "inner_radius", {n: (lambda d: gi * d) for n in pair}, output=ri, v2=v2, vh=vh,
            actions_2={(a, b): (lambda s, t: hi * s * t) for a in pair for b in pair},
        )  # fmt: skip
        res_o = self.propagate_tangents(
            v, "outer_radius", {"solid_fraction": lambda d: go * d}, output=ro, v2=v2, vh=vh,
            actions_2={("solid_fraction", "solid_fraction"): lambda s, t: ho * s * t},
        )  # fmt: skip
        return ri, ro, *({**a, **b} for a, b in zip(res_i, res_o, strict=True))


@register_neml2_object("DiffusionLimitedReaction")
class DiffusionLimitedReaction(ScalarMap):
    """Diffusion-limited reaction rate (2 D Rl Rs / omega) r_o / (r_o - r_i + delta)."""

    OUTPUT = "reaction_rate"
    INPUTS = ("product_inner_radius", "solid_inner_radius", "liquid_reactivity",
              "solid_reactivity")  # fmt: skip
    PARAMS = ("diffusion_coefficient",)
    product_dummy_thickness: float
    molar_volume: float
    hit = HitSchema(
        input("product_inner_radius", Scalar, "Inner radius of the product layer r_i"),
        input("solid_inner_radius", Scalar, "Inner radius of the solid r_o"),
        input("liquid_reactivity", Scalar, "Reactivity of the liquid R_l"),
        input("solid_reactivity", Scalar, "Reactivity of the solid R_s"),
        output("reaction_rate", Scalar, "Reaction rate r"),
        parameter("diffusion_coefficient", Scalar, "Diffusion coefficient D",
                  allow_promotion=True),
        option("product_dummy_thickness", float, "Regularising product thickness delta",
               default="0.01"),
        option("molar_volume", float, "Molar volume omega"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        check_option_value("molar_volume", self.molar_volume, lambda x: x > 0, "must be positive")
        check_option_value("product_dummy_thickness", self.product_dummy_thickness,
                           lambda x: x >= 0, "must be non-negative")  # fmt: skip
        check_literal(self, "diffusion_coefficient", lambda t: t >= 0, "must be non-negative")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`2 D R_l R_s r_o / (\\omega (r_o - r_i + \\delta))`."""
        ri, ro = x["product_inner_radius"], x["solid_inner_radius"]
        c = 2.0 / self.molar_volume
        pre = c * p["diffusion_coefficient"] * x["liquid_reactivity"] * x["solid_reactivity"]
        y: HyperDual = pre * ro / (ro - ri + self.product_dummy_thickness)
        return y
