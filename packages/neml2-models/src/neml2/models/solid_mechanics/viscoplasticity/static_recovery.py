r"""Power-law static recovery of hardening variables.

* ``PowerLawIsotropicHardeningStaticRecovery``: :math:`\dot h = -(|h|/\tau)^{n-1}\,h/\tau`.
  With :math:`u = h/\tau`, :math:`P = |u|^{n-1}`, :math:`f = P u`, :math:`L = \ln|u|`, the partials
  are taken in closed form, finite at :math:`h = 0` for :math:`n \ge 1`:
  :math:`\partial_h = -nP/\tau`, :math:`\partial_\tau = nf/\tau`, :math:`\partial_n = -fL`
  (:math:`fL \to 0` as :math:`h \to 0`); second order
  :math:`\partial_{hh} = -n(n-1)|u|^{n-2}\operatorname{sign}(u)/\tau^2` (0 at :math:`h = 0`),
  :math:`\partial_{h\tau} = n^2P/\tau^2`, :math:`\partial_{hn} = -P(1 + nL)/\tau`,
  :math:`\partial_{\tau\tau} = -n(n+1)f/\tau^2`, :math:`\partial_{\tau n} = f(1 + nL)/\tau`,
  :math:`\partial_{nn} = -fL^2`, with :math:`L` read as 0 at :math:`h = 0`.
* ``PowerLawKinematicHardeningStaticRecovery``: :math:`\dot X = -(\lVert X\rVert/\tau)^{n-1}
  X/\tau` with :math:`\lVert X\rVert = \sqrt{X:X + \epsilon}` (:math:`\epsilon` machine epsilon).
  With :math:`s = (\lVert X\rVert/\tau)^{n-1}/\tau`:
  :math:`\partial_X[\dot X] = -s\,\dot X - (n-1)\,s\,(X:\dot X)\,X/\lVert X\rVert^2`,
  :math:`\partial_\tau = (n/\tau)\,s\,X`, :math:`\partial_n = -s \ln(\lVert X\rVert/\tau)\,X`.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models._checks import require_positive
from neml2.models._scalar_function import HyperDual, ScalarMap, _acc, _scale
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.schema import HitSchema, derived_output, input, parameter
from neml2.tensors import SR2, Scalar, abs, gt, inner, log, pow, sign, sqrt, where

__all__ = ["PowerLawIsotropicHardeningStaticRecovery", "PowerLawKinematicHardeningStaticRecovery"]


@register_neml2_object("PowerLawIsotropicHardeningStaticRecovery")
class PowerLawIsotropicHardeningStaticRecovery(ScalarMap):
    """Power-law static recovery of isotropic hardening."""

    OUTPUT = "isotropic_hardening_rate"
    INPUTS = ("isotropic_hardening",)
    PARAMS = ("tau", "n")
    hit = HitSchema(
        input("isotropic_hardening", Scalar, "Isotropic hardening"),
        derived_output("isotropic_hardening", Scalar, suffix="_rate"),
        parameter("tau", Scalar, "Recovery rate scale tau", allow_promotion=True),
        parameter("n", Scalar, "Recovery exponent n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "tau")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`-(|h|/\\tau)^{n-1} h/\\tau` with the closed-form partials of the module doc."""
        args = (x["isotropic_hardening"], p["tau"], p["n"])
        h, tau, n = (a.v for a in args)
        y = -(pow(abs(h) / tau, n - 1.0) * h / tau)
        u = h / tau
        a = abs(u)
        # |u| with 0 replaced by 1: finite powers/logs at u = 0 (where the masked terms vanish)
        a1 = where(gt(a, 0.0), a, 1.0)
        big_p = pow(a, n - 1.0)
        f = big_p * u
        lg = log(a1)
        d1 = (-n * big_p / tau, n * f / tau, -f * lg)
        if all(arg.h is None for arg in args):
            return _compose(y, args, d1, None)
        nl1 = 1.0 + n * lg
        d2 = (
            (-n * (n - 1.0) * pow(a1, n - 2.0) * sign(u) / (tau * tau), n * n * big_p / (tau * tau),
             -big_p * nl1 / tau),
            (n * n * big_p / (tau * tau), -n * (n + 1.0) * f / (tau * tau), f * nl1 / tau),
            (-big_p * nl1 / tau, f * nl1 / tau, -f * lg * lg),
        )  # fmt: skip
        return _compose(y, args, d1, d2)


def _compose(
    y: Any,
    args: tuple[HyperDual, ...],
    d1: tuple[Any, ...],
    d2: tuple[tuple[Any, ...], ...] | None,
) -> HyperDual:
    r"""Hyper-dual :math:`y = F(a_1,\dots,a_m)` from the partials :math:`F_i`, :math:`F_{ij}`.

    :math:`\nabla y = \sum_i F_i \nabla a_i`,
    :math:`\nabla^2 y = \sum_i F_i \nabla^2 a_i + \sum_{ij} F_{ij}\,\nabla a_i \otimes \nabla a_j`
    (the Hessian only when every argument carries one and ``d2`` is given).
    """
    g: dict[str, Any] = {}
    for di, ai in zip(d1, args, strict=True):
        for k, gk in _scale(ai.g, di).items():
            _acc(g, k, gk)
    if d2 is None or any(ai.h is None for ai in args):
        return HyperDual(y, g, None)
    hess: dict[tuple[str, str], Any] = {}
    for i, ai in enumerate(args):
        assert ai.h is not None
        for k, hk in _scale(ai.h, d1[i]).items():
            _acc(hess, k, hk)
        for j, aj in enumerate(args):
            for ki, gi in ai.g.items():
                for kj, gj in aj.g.items():
                    _acc(hess, (ki, kj), d2[i][j] * gi * gj)
    return HyperDual(y, g, hess)


@register_neml2_object("PowerLawKinematicHardeningStaticRecovery")
class PowerLawKinematicHardeningStaticRecovery(Model):
    """Power-law static recovery of a back stress."""

    hit = HitSchema(
        input("back_stress", SR2, "Back stress"),
        derived_output("back_stress", SR2, suffix="_rate"),
        parameter("tau", Scalar, "Recovery rate scale tau", allow_promotion=True),
        parameter("n", Scalar, "Recovery exponent n", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        require_positive(self, "tau")

    def forward(self, x: Any, *promoted: Any, v: Any = None) -> Any:
        """Back stress rate and (with ``v``) its tangents."""
        tau = self._get_param("tau", promoted)
        n = self._get_param("n", promoted)
        r = sqrt(inner(x, x) + torch.finfo(x.data.dtype).eps)
        s = pow(r / tau, n - 1.0) / tau
        y = -s * x
        if v is None:
            return y
        k = (n - 1.0) * s / (r * r)
        actions: dict[str, Any] = {"back_stress": lambda d: -s * d - (k * inner(x, d)) * x}
        add_action(actions, self.promoted_input("tau"), lambda d: (d * (n / tau * s)) * x)
        add_action(actions, self.promoted_input("n"), lambda d: (d * (-s * log(r / tau))) * x)
        return y, *self.propagate_tangents(v, "back_stress_rate", actions, output=y)
