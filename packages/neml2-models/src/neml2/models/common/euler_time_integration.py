r"""Euler time integration: ``{Scalar,SR2,R2,Vec}BackwardEulerTimeIntegration`` and
``{Scalar,SR2,R2}ForwardEulerTimeIntegration``.

Backward Euler residual (output ``<variable>_residual``, renamed by ``variable_residual``):

.. math::  r = x - x_n - (t - t_n)\,\dot x

Forward Euler update (output ``variable``):

.. math::  x = x_n + (t - t_n)\,\dot x

with :math:`x_n` = ``<variable>~1`` (forward: renamed by ``old_variable``), :math:`\dot x` =
``<variable>_rate`` (renamed by ``rate``), :math:`t` = ``time`` (default ``t``), :math:`t_n` =
``<time>~1``. Both maps are bilinear in :math:`(t, \dot x)`:
:math:`\partial^2 x/\partial t\,\partial\dot x = \pm 1` (``-1`` for the residual).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.schema import HitSchema, derived_input, derived_output, input, output
from neml2.tensors import R2, SR2, Scalar, Vec

__all__ = [
    "BACKWARD_EULER",
    "FORWARD_EULER",
    "BackwardEulerTimeIntegration",
    "ForwardEulerTimeIntegration",
    "make_backward_euler",
    "make_forward_euler",
]


def _bilinear_2(sign: float) -> dict[tuple[str, str], Any]:
    """Second derivatives of ``sign * (t - t_n) * rate`` (nonzero only for (time, rate) pairs)."""
    return {
        ("time", "variable_rate"): lambda a, b: sign * (a * b),
        ("variable_rate", "time"): lambda a, b: sign * (a * b),
        ("time~1", "variable_rate"): lambda a, b: -sign * (a * b),
        ("variable_rate", "time~1"): lambda a, b: -sign * (a * b),
    }


class BackwardEulerTimeIntegration(Model):
    """Generic backward-Euler residual; concrete types from :func:`make_backward_euler`."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True

    def forward(
        self, x: Any, x_old: Any, t: Any, t_old: Any, rate: Any, *,
        v: Any = None, v2: Any = None, vh: Any = None,
    ) -> Any:  # fmt: skip
        """Residual and (with ``v``) its tangents."""
        dt = t - t_old
        r = x - x_old - dt * rate
        if v is None:
            return r
        ndt = -dt
        actions: dict[str, Any] = {
            "variable": lambda d: d,
            "variable~1": lambda d: -d,
            "time": lambda d: -(d * rate),
            "time~1": lambda d: d * rate,
            "variable_rate": scaled_by(ndt),
        }
        return r, *self.propagate_tangents(
            v, "variable_residual", actions, output=r, v2=v2, vh=vh, actions_2=_bilinear_2(-1.0)
        )


class ForwardEulerTimeIntegration(Model):
    """Generic forward-Euler update; concrete types from :func:`make_forward_euler`."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True

    def forward(
        self, x_old: Any, t: Any, t_old: Any, rate: Any, *,
        v: Any = None, v2: Any = None, vh: Any = None,
    ) -> Any:  # fmt: skip
        """Updated variable and (with ``v``) its tangents."""
        dt = t - t_old
        x = x_old + dt * rate
        if v is None:
            return x
        actions: dict[str, Any] = {
            "variable~1": lambda d: d,
            "time": lambda d: d * rate,
            "time~1": lambda d: -(d * rate),
            "variable_rate": scaled_by(dt),
        }
        return x, *self.propagate_tangents(
            v, "variable", actions, output=x, v2=v2, vh=vh, actions_2=_bilinear_2(1.0)
        )


def make_backward_euler(tensor_type: Any) -> type[BackwardEulerTimeIntegration]:
    """Concrete ``<T>BackwardEulerTimeIntegration`` class for tensor type ``tensor_type``."""
    tn = tensor_type.__name__
    name = f"{tn}BackwardEulerTimeIntegration"
    hit = HitSchema(
        input("variable", tensor_type, "Variable being integrated", attr="variable_name"),
        derived_input("variable", tensor_type, suffix="~1"),
        input("time", Scalar, "Time", default="t", attr="time_name"),
        derived_input("time", Scalar, suffix="~1"),
        derived_input("variable", tensor_type, suffix="_rate", override="rate"),
        derived_output("variable", tensor_type, suffix="_residual"),
    )
    doc = f"Backward-Euler residual of a {tn}: r = x - x~1 - (t - t~1) * x_rate."
    cls = type(
        name, (BackwardEulerTimeIntegration,), {"hit": hit, "__doc__": doc, "__module__": __name__}
    )
    return register_neml2_object(name)(cls)


def make_forward_euler(tensor_type: Any) -> type[ForwardEulerTimeIntegration]:
    """Concrete ``<T>ForwardEulerTimeIntegration`` class for tensor type ``tensor_type``."""
    tn = tensor_type.__name__
    name = f"{tn}ForwardEulerTimeIntegration"
    hit = HitSchema(
        derived_input("variable", tensor_type, suffix="~1", override="old_variable"),
        input("time", Scalar, "Time", default="t", attr="time_name"),
        derived_input("time", Scalar, suffix="~1"),
        derived_input("variable", tensor_type, suffix="_rate", override="rate"),
        output("variable", tensor_type, "Updated variable", attr="variable_name"),
    )
    doc = f"Forward-Euler update of a {tn}: x = x~1 + (t - t~1) * x_rate."
    cls = type(
        name, (ForwardEulerTimeIntegration,), {"hit": hit, "__doc__": doc, "__module__": __name__}
    )
    return register_neml2_object(name)(cls)


BACKWARD_EULER = {t.__name__: make_backward_euler(t) for t in (Scalar, SR2, R2, Vec)}
FORWARD_EULER = {t.__name__: make_forward_euler(t) for t in (Scalar, SR2, R2)}
