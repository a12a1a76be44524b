r"""Finite-difference rates ``{Scalar,SR2,R2,Vec}VariableRate``.

.. math::  \dot x = \frac{x - x_n}{t - t_n}

Inputs ``variable``, ``<variable>~1``, ``time`` (default ``t``), ``<time>~1``; output
``<variable>_rate`` (renamed by option ``variable_rate``).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, derived_input, derived_output, input
from neml2.tensors import R2, SR2, Scalar, Vec

__all__ = ["VariableRate", "make_variable_rate"]


class VariableRate(Model):
    """Generic finite-difference rate; concrete types come from :func:`make_variable_rate`."""

    ACCEPTS_DEFERRED_TANGENTS = True

    def forward(self, x: Any, x_old: Any, t: Any, t_old: Any, *, v: Any = None) -> Any:
        """Rate and (with ``v``) its tangents."""
        dt = t - t_old
        rate = (x - x_old) / dt
        if v is None:
            return rate
        actions = {
            "variable": lambda d: d / dt,
            "variable~1": lambda d: -d / dt,
            "time": lambda d: -(d / dt) * rate,
            "time~1": lambda d: (d / dt) * rate,
        }
        return rate, *self.propagate_tangents(v, "variable_rate", actions, output=rate)


def make_variable_rate(tensor_type: Any) -> type[VariableRate]:
    """Concrete ``<T>VariableRate`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}VariableRate"
    hit = HitSchema(
        input("variable", tensor_type, "Variable whose rate is computed"),
        derived_input("variable", tensor_type, suffix="~1"),
        input("time", Scalar, "Time", default="t"),
        derived_input("time", Scalar, suffix="~1"),
        derived_output("variable", tensor_type, suffix="_rate"),
    )
    doc = f"Finite-difference rate of a {tensor_type.__name__}: (x - x~1) / (t - t~1)."
    cls = type(name, (VariableRate,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


ScalarVariableRate = make_variable_rate(Scalar)
SR2VariableRate = make_variable_rate(SR2)
R2VariableRate = make_variable_rate(R2)
VecVariableRate = make_variable_rate(Vec)
