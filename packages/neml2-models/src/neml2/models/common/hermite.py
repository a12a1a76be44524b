r"""Hermite-polynomial switches: ``HermiteSmoothStep`` and ``SymmetricHermiteInterpolation``.

Both map a Scalar ``argument`` :math:`x` through :math:`u = (x - x_0)/\Delta`,
:math:`\Delta = x_1 - x_0` (``lower_bound`` :math:`x_0` < ``upper_bound`` :math:`x_1`).

``HermiteSmoothStep`` (output ``value``), :math:`\bar u = \mathrm{clamp}(u, \epsilon, 1 - \epsilon)`
with :math:`\epsilon` the machine epsilon of the dtype:

.. math::  y = 3\bar u^2 - 2\bar u^3 \quad(\text{or } 1 - y \text{ with } \texttt{complement}),
   \qquad y' = 6\bar u(1 - \bar u)/\Delta, \qquad y'' = (6 - 12\bar u)/\Delta^2

inside the clamp range (both vanish outside; signs flip with ``complement``).

``SymmetricHermiteInterpolation`` (output named after the block, option ``output``), a bump of
unit integral, :math:`c = \mathrm{clamp}(u, 0, 1)`, :math:`s = \min(c, 1 - c)`:

.. math::  y = (24 s^2 - 32 s^3)/\Delta, \qquad
   y' = \pm(48 s - 96 s^2)/\Delta^2 \;(+ \text{ for } c < 1/2), \qquad
   y'' = (48 - 192 s)/\Delta^3

inside :math:`[x_0, x_1]` (zero outside).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import BLOCK_NAME, HitSchema, input, option, output, parameter
from neml2.tensors import Scalar, clamp, gt, lt, where

__all__ = ["HermiteSmoothStep", "SymmetricHermiteInterpolation"]


def _inside(u: Any, lo: float, hi: float) -> Any:
    """1 where ``lo <= u <= hi`` (the clamp passes derivatives), else 0."""
    one = u * 0.0 + 1.0
    return where(lt(u, lo), 0.0, where(gt(u, hi), 0.0, one))


class _HermiteBase(Model):
    """Shared bounds handling of the Hermite switches."""

    SUPPORTS_SECOND_ORDER = True

    def __post_init__(self) -> None:
        width = self._get_param("upper_bound") - self._get_param("lower_bound")
        if not bool(torch.all(width.data > 0)):
            raise ValueError("option 'upper_bound': must be greater than 'lower_bound'")

    def _scaled(self, x: Any) -> tuple[Any, Any]:
        """``(u, Δ)`` with ``u = (x − x0)/Δ``."""
        lo = self._get_param("lower_bound")
        width = self._get_param("upper_bound") - lo
        return (x - lo) / width, width


@register_neml2_object("HermiteSmoothStep")
class HermiteSmoothStep(_HermiteBase):
    """Smooth cubic step 3u^2 - 2u^3 from 0 at lower_bound to 1 at upper_bound."""

    complement: bool
    hit = HitSchema(
        input("argument", Scalar, "Argument x", attr="argument_name"),
        output("value", Scalar, "Smooth step value", attr="value_name"),
        parameter("lower_bound", Scalar, "Argument where the step starts (value 0)"),
        parameter("upper_bound", Scalar, "Argument where the step ends (value 1)"),
        option("complement", bool, "Return 1 - step instead", default=False),
    )

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Step value and (with ``v``) its tangents."""
        u, width = self._scaled(x)
        eps = torch.finfo(x.dtype).eps
        c = clamp(u, eps, 1.0 - eps)
        y = c * c * (3.0 - 2.0 * c)
        sign = -1.0 if self.complement else 1.0
        if self.complement:
            y = 1.0 - y
        if v is None:
            return y
        mask = _inside(u, eps, 1.0 - eps) * sign
        g1 = mask * 6.0 * c * (1.0 - c) / width
        g2 = mask * (6.0 - 12.0 * c) / (width * width)
        actions = {"argument": lambda d: g1 * d}
        actions_2 = {("argument", "argument"): lambda a, b: g2 * a * b}
        return y, *self.propagate_tangents(
            v, "value", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )


@register_neml2_object("SymmetricHermiteInterpolation")
class SymmetricHermiteInterpolation(_HermiteBase):
    """Symmetric cubic bump (24s^2 - 32s^3)/(x1 - x0) of unit integral over [x0, x1]."""

    hit = HitSchema(
        input("argument", Scalar, "Argument x", attr="argument_name"),
        output("output", Scalar, "Bump value (defaults to the block name)", default=BLOCK_NAME,
               attr="output_name"),
        parameter("lower_bound", Scalar, "Start of the bump support"),
        parameter("upper_bound", Scalar, "End of the bump support"),
    )  # fmt: skip

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Bump value and (with ``v``) its tangents."""
        u, width = self._scaled(x)
        c = clamp(u, 0.0, 1.0)
        upper = gt(c, 0.5)
        s = where(upper, 1.0 - c, c)
        y = s * s * (24.0 - 32.0 * s) / width
        if v is None:
            return y
        g1 = s * (48.0 - 96.0 * s) / (width * width)
        g1 = where(upper, -g1, g1)
        g2 = _inside(u, 0.0, 1.0) * (48.0 - 192.0 * s) / (width * width * width)
        actions = {"argument": lambda d: g1 * d}
        actions_2 = {("argument", "argument"): lambda a, b: g2 * a * b}
        return y, *self.propagate_tangents(
            v, "output", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )
