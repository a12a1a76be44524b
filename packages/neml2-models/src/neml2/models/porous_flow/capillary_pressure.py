r"""Capillary pressure curves :math:`P_c(S)` of the effective saturation :math:`S`.

``VanGenuchtenCapillaryPressure``: :math:`P_c = a\,(S^{-1/m} - 1)^{1-m}` with ``a``,
``m`` (both promotable). This is van Genuchten's (1980) curve
:math:`P_c = \frac{1}{\alpha}(S^{-1/m} - 1)^{1/n}`, :math:`m = 1 - 1/n`, with
:math:`a = 1/\alpha` (so :math:`1 - m = 1/n`). As in NEML2 v3, :math:`S` is capped at
:math:`1 - \epsilon` (:math:`\epsilon` the machine epsilon of the dtype) so that
:math:`P_c(1) \approx 0` stays finite; the cap acts on the value only: above the cap the derivative
is :math:`\mathrm{d}P_c/\mathrm{d}S` evaluated at :math:`1 - \epsilon` (v3's numbers), not zero.

``BrooksCoreyCapillaryPressure``: :math:`P_c = P_t\,S^{-1/p}` (Brooks & Corey 1964, threshold
pressure :math:`P_t` = ``threshold_pressure``, pore-size index :math:`\lambda = p` =
``exponent``; both promotable). No cap.

Derivatives (with :math:`w = S^{-1/m}`, :math:`u = w - 1`):
:math:`\mathrm{d}P_c/\mathrm{d}S = -a\frac{1-m}{m}\,u^{-m}\,w/S` (van Genuchten),
:math:`\mathrm{d}P_c/\mathrm{d}S = -P_c/(p\,S)` (Brooks-Corey). All first and second derivatives
(also in the promoted parameters) come from hyper-dual arithmetic
(:mod:`neml2.models._scalar_function`). Difference from NEML2 v3: v3 returns
zero derivatives with respect to a promoted ``a``, ``m``, ``threshold_pressure`` or ``exponent``
(values agree); here they are the exact ones.

Optional ``log_extension`` (with ``transition_saturation`` :math:`S_p`): below :math:`S_p`,
:math:`\log_{10} P_c` is continued linearly in :math:`S`, matching value and slope at
:math:`S_p` (C¹):

.. math:: P_c(S) = P_c(S_p)\,\exp\!\big(L'(S_p)\,(S - S_p)\big), \qquad S < S_p,

with :math:`L = \ln P_c`, :math:`L'(S_p) = P_c'(S_p)/P_c(S_p)`, i.e.
:math:`L = \ln a + (1-m)\ln u`, :math:`L' = -\frac{(1-m)\,w}{m\,S_p\,u}` (van Genuchten) and
:math:`L = \ln P_t - \ln(S_p)/p`, :math:`L' = -1/(p\,S_p)` (Brooks-Corey). The extension keeps
:math:`P_c` finite and positive down to (and below) :math:`S = 0`; at :math:`S = S_p` the curve
branch is used (both agree there).

Construction checks (NEML2 v3 accepts all of these; they are refused here because the curve is
meaningless for them): ``transition_saturation`` outside :math:`[0, 1]` (also refused by v3);
with ``log_extension``, :math:`S_p \le 0` (v3 too), and for van Genuchten :math:`S_p = 1`
(:math:`P_c(1) = 0`: no logarithm); literal ``a`` :math:`\le 0` or ``threshold_pressure``
:math:`\le 0` (a capillary pressure scale must be positive); literal ``m`` outside
:math:`(0, 1)` (:math:`m = 1 - 1/n`, :math:`n > 1`); literal ``exponent`` :math:`\le 0`.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_exp, hd_log, hd_where
from neml2.schema import HitSchema, input, option, output, parameter
from neml2.tensors import Scalar, clamp, lt

__all__ = ["BrooksCoreyCapillaryPressure", "VanGenuchtenCapillaryPressure"]


def _common(*params: Any) -> HitSchema:
    return HitSchema(
        input("effective_saturation", Scalar, "Effective saturation S"),
        output("capillary_pressure", Scalar, "Capillary pressure Pc"),
        *params,
        option("log_extension", bool, "Continue log10(Pc) linearly below transition_saturation",
               default=False),
        option("transition_saturation", float, "Saturation Sp below which the log extension "
               "applies", default=0.0),
    )  # fmt: skip


class _CapillaryPressure(ScalarMap):
    """Capillary pressure curve with the optional C¹ logarithmic extension below ``Sp``."""

    OUTPUT = "capillary_pressure"
    INPUTS = ("effective_saturation",)
    SP_MAX_OPEN = True  # with log_extension, Sp must be < 1 (else <= 1)
    log_extension: bool
    transition_saturation: float

    def __post_init__(self) -> None:
        sp = self.transition_saturation
        if not 0.0 <= sp <= 1.0:
            raise ValueError(f"option 'transition_saturation': must be in [0, 1], got {sp}")
        if self.log_extension and (sp <= 0.0 or (self.SP_MAX_OPEN and sp >= 1.0)):
            rng = "(0, 1)" if self.SP_MAX_OPEN else "(0, 1]"
            raise ValueError(
                f"option 'transition_saturation': must be in {rng} when log_extension = true, "
                f"got {sp}"
            )
        self.check_params()

    def check_params(self) -> None:
        """Construction checks of the literal parameters."""

    def curve(self, S: HyperDual, p: dict[str, HyperDual]) -> HyperDual:
        """:math:`P_c(S)` without the extension."""
        raise NotImplementedError

    def log_and_slope(self, p: dict[str, HyperDual]) -> tuple[HyperDual, HyperDual]:
        """:math:`(\\ln P_c, \\mathrm{d}\\ln P_c/\\mathrm{d}S)` at the transition saturation."""
        raise NotImplementedError

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Capillary pressure (extended below ``Sp`` when ``log_extension``)."""
        S = x["effective_saturation"]
        y = self.curve(S, p)
        if not self.log_extension:
            return y
        sp = self.transition_saturation
        L, dL = self.log_and_slope(p)
        ext = hd_exp(L + dL * (S - sp))
        return hd_where(lt(S.v, sp), ext, y)


@register_neml2_object("VanGenuchtenCapillaryPressure")
class VanGenuchtenCapillaryPressure(_CapillaryPressure):
    """Van Genuchten capillary pressure a (S^(-1/m) - 1)^(1-m)."""

    PARAMS = ("a", "m")
    hit = _common(
        parameter("a", Scalar, "Pressure scale a (1/alpha of van Genuchten)",
                  allow_promotion=True),
        parameter("m", Scalar, "Shape exponent m = 1 - 1/n, in (0, 1)", allow_promotion=True),
    )  # fmt: skip

    def check_params(self) -> None:
        check_literal(self, "a", lambda t: t > 0, "must be positive")
        check_literal(self, "m", lambda t: (t > 0) & (t < 1), "must be in (0, 1)")

    def curve(self, S: HyperDual, p: dict[str, HyperDual]) -> HyperDual:
        a, m = p["a"], p["m"]
        eps = torch.finfo(S.v.data.dtype).eps
        Sc = HyperDual(clamp(S.v, hi=1.0 - eps), S.g, S.h)  # v3: value capped, slope kept
        u = hd_exp(hd_log(Sc) * (-1.0 / m)) - 1.0
        return a * hd_exp(hd_log(u) * (1.0 - m))

    def log_and_slope(self, p: dict[str, HyperDual]) -> tuple[HyperDual, HyperDual]:
        a, m = p["a"], p["m"]
        sp = self.transition_saturation
        w = hd_exp((-math.log(sp)) / m)
        u = w - 1.0
        L = hd_log(a) + (1.0 - m) * hd_log(u)
        dL = -(1.0 - m) * w / (m * sp * u)
        return L, dL


@register_neml2_object("BrooksCoreyCapillaryPressure")
class BrooksCoreyCapillaryPressure(_CapillaryPressure):
    """Brooks-Corey capillary pressure Pt S^(-1/p)."""

    SP_MAX_OPEN = False
    PARAMS = ("threshold_pressure", "exponent")
    hit = _common(
        parameter("threshold_pressure", Scalar, "Threshold (entry) pressure Pt",
                  allow_promotion=True),
        parameter("exponent", Scalar, "Pore-size distribution index p (lambda)",
                  allow_promotion=True),
    )  # fmt: skip

    def check_params(self) -> None:
        check_literal(self, "threshold_pressure", lambda t: t > 0, "must be positive")
        check_literal(self, "exponent", lambda t: t > 0, "must be positive")

    def curve(self, S: HyperDual, p: dict[str, HyperDual]) -> HyperDual:
        Pt, lam = p["threshold_pressure"], p["exponent"]
        return Pt * hd_exp(hd_log(S) * (-1.0 / lam))

    def log_and_slope(self, p: dict[str, HyperDual]) -> tuple[HyperDual, HyperDual]:
        Pt, lam = p["threshold_pressure"], p["exponent"]
        sp = self.transition_saturation
        L = hd_log(Pt) - math.log(sp) / lam
        dL = -1.0 / (lam * sp)
        return L, dL
