r"""``ModeMixity``: the mode-mixity ratio of a cohesive opening,

.. math::  \beta = \begin{cases} \delta_s/\delta_n & \delta_n > 0 \\ 0 & \text{otherwise}\end{cases}

with :math:`\delta_n` the normal and :math:`\delta_s` the (effective) tangential separation.
Derivatives for :math:`\delta_n > 0`: :math:`\partial\beta/\partial\delta_s = 1/\delta_n`,
:math:`\partial\beta/\partial\delta_n = -\beta/\delta_n` (zero otherwise).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import Scalar, gt, where

__all__ = ["ModeMixity"]


@register_neml2_object("ModeMixity")
class ModeMixity(Model):
    """Mode mixity beta = tangential / normal separation (0 when the interface is closed)."""

    hit = HitSchema(
        input("normal_separation", Scalar, "Normal separation (opening, >= 0)"),
        input("tangential_separation", Scalar, "Effective tangential separation"),
        output("mode_mixity", Scalar, "Mode mixity beta"),
    )

    def __post_init__(self) -> None:
        dn, ds, beta = self.normal_separation, self.tangential_separation, self.mode_mixity
        if dn == ds:
            raise ValueError(
                f"options 'normal_separation' and 'tangential_separation' both name variable "
                f"'{dn}'; the two separations must be different variables"
            )
        if beta in (dn, ds):
            raise ValueError(f"option 'mode_mixity': output '{beta}' is also an input variable")

    def forward(self, dn: Any, ds: Any, *, v: Any = None) -> Any:
        """Mode mixity and (with ``v``) its tangents."""
        open_ = gt(dn, 0.0)
        inv = where(open_, 1.0 / where(open_, dn, 1.0), 0.0)
        beta = ds * inv
        if v is None:
            return beta
        actions = {
            "tangential_separation": lambda d: inv * d,
            "normal_separation": lambda d: -(beta * inv) * d,
        }
        return beta, *self.propagate_tangents(v, "mode_mixity", actions, output=beta)
