r"""Elasticity tensors (SSR4, Mandel) built from elastic constants; output named after the block.

* ``IsotropicElasticityTensor``: :math:`C = 3K\,I_{vol} + 2G\,I_{dev}` from any two isotropic
  constants (``coefficients`` + ``coefficient_types``).
* ``CubicElasticityTensor``: :math:`C = C_1 I_{C1} + C_2 I_{C2} + 2G\,I_{C3}` with
  :math:`C_1 = E(1-\nu)/((1+\nu)(1-2\nu))`, :math:`C_2 = E\nu/((1+\nu)(1-2\nu))`; needs
  ``YOUNGS_MODULUS``, ``POISSONS_RATIO`` and ``SHEAR_MODULUS``.

Promoted coefficients become inputs; :math:`\partial C/\partial p` comes from dual numbers.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action, times
from neml2.models.solid_mechanics.elasticity._elastic_constants import (
    check_KG,
    cubic_constants,
    declare_coefficients,
    isotropic_KG,
)
from neml2.schema import BLOCK_NAME, HitSchema, option, output
from neml2.tensors import SSR4

__all__ = ["CubicElasticityTensor", "IsotropicElasticityTensor"]


class _ElasticityTensor(Model):
    """Constant-structure SSR4 ``C = Σ_k c_k(p) B_k`` from elastic constants ``p``."""

    SUPPORTS_SECOND_ORDER = True
    COUNT = 2
    REQUIRED: tuple[str, ...] | None = None
    coefficients: list[str]
    coefficient_types: list[str]

    def __init__(self, **hit_values: Any) -> None:
        factory = hit_values.get("factory")
        super().__init__(**hit_values)
        self._coef = declare_coefficients(
            self, self.coefficients, self.coefficient_types, factory,
            count=self.COUNT, required=self.REQUIRED,
        )  # fmt: skip
        if self.REQUIRED is None:
            check_KG(self, self._coef)

    def terms(
        self, vals: dict[str, Any], wrt: dict[str, str], second: bool
    ) -> list[tuple[Any, Any]]:
        """``[(hyper-dual coefficient, basis SSR4)]``."""
        raise NotImplementedError

    def forward(self, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The tensor and (with ``v``) its tangents w.r.t. promoted coefficients."""
        vals = {s: self._get_param(s, promoted) for s in self._coef}
        wrt = {}
        if v is not None:
            wrt = {s: src for s in self._coef if (src := self.promoted_input(s)) is not None}
        terms = self.terms(vals, wrt, v2 is not None or vh is not None)
        c = _sum([dual.v * basis for dual, basis in terms])
        if v is None:
            return c
        actions: dict[str, Any] = {}
        for k in {k for dual, _ in terms for k in dual.g}:
            dc = _sum([dual.g[k] * basis for dual, basis in terms if k in dual.g])
            add_action(actions, k, times(dc))
        actions_2: dict[tuple[str, str], Any] = {}
        for km in {km for dual, _ in terms for km in (dual.h or {})}:
            hc = _sum([dual.h[km] * basis for dual, basis in terms if km in (dual.h or {})])
            actions_2[km] = lambda p, q, hc=hc: hc * p * q
        return c, *self.propagate_tangents(
            v, "C", actions, output=c, v2=v2, vh=vh, actions_2=actions_2
        )


def _sum(parts: list[Any]) -> Any:
    total = parts[0]
    for x in parts[1:]:
        total = total + x
    return total


@register_neml2_object("IsotropicElasticityTensor")
class IsotropicElasticityTensor(_ElasticityTensor):
    """Isotropic stiffness tensor."""

    hit = HitSchema(
        output("C", SSR4, "The elasticity tensor", default=BLOCK_NAME),
        option("coefficients", list, "Two elastic constants (literals, tensors or variables)"),
        option("coefficient_types", list,
               "Types of the coefficients, e.g. 'YOUNGS_MODULUS POISSONS_RATIO'"),
    )  # fmt: skip

    def terms(
        self, vals: dict[str, Any], wrt: dict[str, str], second: bool
    ) -> list[tuple[Any, Any]]:
        """:math:`3K I_{vol} + 2G I_{dev}`."""
        K, G = isotropic_KG(vals, wrt, second)
        x = next(iter(vals.values())).data
        return [
            (3.0 * K, SSR4.identity_vol(x.dtype, x.device)),
            (2.0 * G, SSR4.identity_dev(x.dtype, x.device)),
        ]


@register_neml2_object("CubicElasticityTensor")
class CubicElasticityTensor(_ElasticityTensor):
    """Cubic stiffness tensor."""

    COUNT = 3
    REQUIRED = ("E", "nu", "G")
    hit = HitSchema(
        output("C", SSR4, "The elasticity tensor", default=BLOCK_NAME),
        option("coefficients", list, "Three elastic constants (literals, tensors or variables)"),
        option("coefficient_types", list,
               "Types of the coefficients: YOUNGS_MODULUS, POISSONS_RATIO and SHEAR_MODULUS"),
    )  # fmt: skip

    def terms(
        self, vals: dict[str, Any], wrt: dict[str, str], second: bool
    ) -> list[tuple[Any, Any]]:
        """:math:`C_1 I_{C1} + C_2 I_{C2} + 2G I_{C3}`."""
        c1, c2, c3 = cubic_constants(vals, wrt, second)
        x = next(iter(vals.values())).data
        return [
            (c1, SSR4.identity_C1(x.dtype, x.device)),
            (c2, SSR4.identity_C2(x.dtype, x.device)),
            (c3, SSR4.identity_C3(x.dtype, x.device)),
        ]
