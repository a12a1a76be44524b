r"""Exponential-map time integration of an orientation (MRP) under a spin :math:`\omega` (WR2).

With :math:`\Delta t = t - t_n` and :math:`r = \exp(\Delta t\, \omega)` (WR2 → MRP exponential
map), the update composes the increment with the previous orientation:

* ``WR2ExplicitExponentialTimeIntegration``: :math:`q = r \circ q_n` (output ``variable``);
* ``WR2ImplicitExponentialTimeIntegration``: residual :math:`R = q - r \circ q_n` (output
  ``<variable>_residual``).

Inputs ``<variable>~1``, ``time`` (default ``t``), ``<time>~1`` and ``<variable>_rate`` (option
``rate`` renames it). Tangents: :math:`\mathrm{d}(r \circ q_n) = J_1\, \mathrm{d}r + J_2\,
\mathrm{d}q_n` with :math:`\mathrm{d}r = \exp'(\Delta t\,\omega)[\mathrm{d}\Delta t\, \omega +
\Delta t\, \mathrm{d}\omega]`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, derived_input, derived_output, input, output
from neml2.tensors import MRP, WR2, Scalar, compose, exp_map, jvp_compose, jvp_exp_map

__all__ = ["WR2ExplicitExponentialTimeIntegration", "WR2ImplicitExponentialTimeIntegration"]


def _update(q_old: Any, t: Any, t_old: Any, w: Any) -> tuple[Any, dict[str, Any]]:
    """``r ∘ q_n`` and the tangent actions of it keyed by option names."""
    dt = t - t_old
    wdt = dt * w
    r = exp_map(wdt)
    q = compose(r, q_old)

    def via_r(dwdt: Any) -> Any:
        return jvp_compose(r, q_old, dr1=jvp_exp_map(wdt, dwdt))

    actions = {
        "variable~1": lambda d: jvp_compose(r, q_old, dr2=d),
        "time": lambda d: via_r(d * w),
        "time~1": lambda d: -via_r(d * w),
        "variable_rate": lambda d: via_r(dt * d),
    }
    return q, actions


def _negated(act: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda d: -act(d)


_INPUTS = (
    derived_input("variable", MRP, suffix="~1"),
    input("time", Scalar, "Time", default="t"),
    derived_input("time", Scalar, suffix="~1"),
    derived_input("variable", WR2, suffix="_rate", override="rate"),
)


@register_neml2_object("WR2ExplicitExponentialTimeIntegration")
class WR2ExplicitExponentialTimeIntegration(Model):
    """Explicit exponential update q = exp((t - t~1) w) o q~1 of an MRP orientation."""

    hit = HitSchema(output("variable", MRP, "Updated orientation q"), *_INPUTS)

    def forward(self, q_old: Any, t: Any, t_old: Any, w: Any, *, v: Any = None) -> Any:
        """Updated orientation and (with ``v``) its tangents."""
        q, actions = _update(q_old, t, t_old, w)
        if v is None:
            return q
        return q, *self.propagate_tangents(v, "variable", actions, output=q)


@register_neml2_object("WR2ImplicitExponentialTimeIntegration")
class WR2ImplicitExponentialTimeIntegration(Model):
    """Residual q - exp((t - t~1) w) o q~1 of the exponential orientation update."""

    hit = HitSchema(
        input("variable", MRP, "Orientation q"),
        *_INPUTS,
        derived_output("variable", MRP, suffix="_residual"),
    )

    def forward(self, q: Any, q_old: Any, t: Any, t_old: Any, w: Any, *, v: Any = None) -> Any:
        """Residual and (with ``v``) its tangents."""
        q_new, upd = _update(q_old, t, t_old, w)
        res = q - q_new
        if v is None:
            return res
        actions: dict[str, Callable[[Any], Any]] = {"variable": lambda d: d}
        for key, act in upd.items():
            actions[key] = _negated(act)
        return res, *self.propagate_tangents(v, "variable_residual", actions, output=res)
