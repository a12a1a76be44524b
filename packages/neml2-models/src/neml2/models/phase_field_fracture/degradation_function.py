r"""Degradation functions :math:`g(d)` of the phase field :math:`d` (residual stiffness
:math:`\eta`, option ``eta``, default 0).

* ``PowerDegradationFunction``: :math:`g = (1-d)^p (1-\eta) + \eta`;
  :math:`g' = -p (1-d)^{p-1} (1-\eta)`, :math:`g'' = p (p-1) (1-d)^{p-2} (1-\eta)`.
* ``RationalDegradationFunction``: :math:`g = \frac{f}{f + Q}(1-\eta) + \eta` with
  :math:`f = (1-d)^p`, :math:`Q = b_1 d (1 + b_2 d + b_2 b_3 d^2)`. With :math:`s = f + Q` and
  :math:`N = f' Q - f Q'`: :math:`g' = (1-\eta) N / s^2`,
  :math:`g'' = (1-\eta) [(f'' Q - f Q'')/s^2 - 2 N s'/s^3]`.

``power`` (stored as ``p``), ``b1``, ``b2``, ``b3`` are Scalar parameters (not promotable, as in
NEML2 v3). Refused at construction (NEML2 v3 accepts them): ``power`` :math:`\le 0`, ``eta``
outside :math:`[0, 1)` and (rational) ``b1`` :math:`\le 0`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal, check_option_value
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output, parameter
from neml2.tensors import Scalar

__all__ = ["PowerDegradationFunction", "RationalDegradationFunction"]


def _phase_io() -> tuple[Any, ...]:
    return (
        input("phase", Scalar, "Phase-field (damage) variable d"),
        output("degradation", Scalar, "Degradation function g(d)"),
        parameter("power", Scalar, "Power p of (1 - d)"),
    )


_ETA = option("eta", float, "Residual degradation eta in [0, 1)", default=0.0)


class _Degradation(Model):
    """Common checks of the degradation functions."""

    SUPPORTS_SECOND_ORDER = True
    eta: float
    POSITIVE: tuple[str, ...] = ("power",)

    def __post_init__(self) -> None:
        check_option_value("eta", self.eta, lambda x: 0.0 <= x < 1.0, "must lie in [0, 1)")
        for name in self.POSITIVE:
            check_literal(self, name, lambda t: t > 0, "must be positive")


@register_neml2_object("PowerDegradationFunction")
class PowerDegradationFunction(_Degradation):
    """Power-law degradation g = (1 - d)^p (1 - eta) + eta."""

    hit = HitSchema(*_phase_io(), _ETA)

    def forward(self, d: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """g and (with ``v``) its first and second tangents."""
        p = self._get_param("power")
        c = 1.0 - self.eta
        u = 1.0 - d
        g = u**p * c + self.eta
        if v is None:
            return g
        g1 = -p * u ** (p - 1.0) * c
        g2 = p * (p - 1.0) * u ** (p - 2.0) * c
        return g, *self.propagate_tangents(
            v, "degradation", {"phase": lambda x: g1 * x}, output=g, v2=v2, vh=vh,
            actions_2={("phase", "phase"): lambda a, b: g2 * a * b},
        )  # fmt: skip


@register_neml2_object("RationalDegradationFunction")
class RationalDegradationFunction(_Degradation):
    """Rational degradation g = f / (f + Q) (1 - eta) + eta (Wu's phase-field cohesive model)."""

    POSITIVE = ("power", "b1")
    hit = HitSchema(
        *_phase_io(),
        parameter("b1", Scalar, "Coefficient b1 of Q"),
        parameter("b2", Scalar, "Coefficient b2 of Q"),
        parameter("b3", Scalar, "Coefficient b3 of Q"),
        _ETA,
    )

    def forward(self, d: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """g and (with ``v``) its first and second tangents."""
        p, b1, b2, b3 = self._get_param_list(("power", "b1", "b2", "b3"))
        c = 1.0 - self.eta
        u = 1.0 - d
        f = u**p
        q = b1 * d * (1.0 + b2 * d + b2 * b3 * d * d)
        s = f + q
        g = f / s * c + self.eta
        if v is None:
            return g
        f1 = -p * u ** (p - 1.0)
        q1 = b1 * (1.0 + 2.0 * b2 * d + 3.0 * b2 * b3 * d * d)
        n = f1 * q - f * q1
        g1 = c * n / (s * s)
        f2 = p * (p - 1.0) * u ** (p - 2.0)
        q2 = b1 * (2.0 * b2 + 6.0 * b2 * b3 * d)
        g2 = c * ((f2 * q - f * q2) / (s * s) - 2.0 * n * (f1 + q1) / (s * s * s))
        return g, *self.propagate_tangents(
            v, "degradation", {"phase": lambda x: g1 * x}, output=g, v2=v2, vh=vh,
            actions_2={("phase", "phase"): lambda a, b: g2 * a * b},
        )  # fmt: skip
