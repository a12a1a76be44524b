r"""``LinearIsotropicElasticity``: :math:`\sigma = 3K\,\mathrm{vol}(\varepsilon) + 2G\,\mathrm{dev}(\varepsilon)`.

:math:`K, G` come from two elastic constants (``coefficients`` + ``coefficient_types``, e.g.
:math:`K = E/(3(1-2\nu))`, :math:`G = E/(2(1+\nu))`). With ``compliance = true`` the roles swap:
the input is the stress and :math:`\varepsilon = \mathrm{vol}(\sigma)/(3K) + \mathrm{dev}(\sigma)/(2G)`.
With ``rate_form = true`` both variable names get the suffix ``_rate``.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import linear_map, product_term
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action, add_action_2, times
from neml2.models.solid_mechanics.elasticity._elastic_constants import (
    check_KG,
    declare_coefficients,
    isotropic_KG,
)
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import SR2, dev, mandel_apply, mandel_projectors, tr, vol

__all__ = ["LinearIsotropicElasticity"]


@register_neml2_object("LinearIsotropicElasticity")
class LinearIsotropicElasticity(Model):
    """Linear isotropic elasticity (stiffness or compliance form, optionally in rate form)."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("strain", SR2, "Strain (the output when compliance = true)"),
        output("stress", SR2, "Stress (the input when compliance = true)"),
        option("compliance", bool, "Map stress to strain instead of strain to stress",
               default=False),
        option("rate_form", bool, "Append _rate to the strain and stress variable names",
               default=False),
        option("coefficients", list, "Two elastic constants (literals, tensors or variables)"),
        option("coefficient_types", list,
               "Types of the coefficients, e.g. 'YOUNGS_MODULUS POISSONS_RATIO'"),
    )  # fmt: skip

    strain: str
    stress: str
    compliance: bool
    rate_form: bool
    coefficients: list[str]
    coefficient_types: list[str]

    def __init__(self, **hit_values: Any) -> None:
        factory = hit_values.get("factory")
        super().__init__(**hit_values)
        suffix = "_rate" if self.rate_form else ""
        src, dst = (self.stress, self.strain) if self.compliance else (self.strain, self.stress)
        self._in_name = src + suffix
        self._out_name = dst + suffix
        self.input_spec = {self._in_name: SR2}
        self.output_spec = {self._out_name: SR2}
        self.output_priorities = {self._out_name: None}
        self._var_renames = {}
        self._coef = declare_coefficients(
            self, self.coefficients, self.coefficient_types, factory, count=2
        )
        check_KG(self, self._coef)

    def forward(self, x: Any, *promoted: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Stress (or strain) and, with ``v``, its first/second-order tangents."""
        vals = {s: self._get_param(s, promoted) for s in self._coef}
        wrt = {}
        if v is not None:
            wrt = {s: src for s in self._coef if (src := self.promoted_input(s)) is not None}
        K, G = isotropic_KG(vals, wrt, v2 is not None or vh is not None)
        ca, cb = (1.0 / (3.0 * K), 1.0 / (2.0 * G)) if self.compliance else (3.0 * K, 2.0 * G)
        a, b = ca.v, cb.v
        # a vol(d) + b dev(d) = b d + ((a - b)/3) tr(d) I: four pointwise ops (traced graphs
        # fuse them into one loop); in eager mode with constant moduli, one GEMM with
        # C = a P_vol + b P_dev instead, for the value and for every tangent
        p = mandel_projectors(x.data) if a.data.dim() == 0 and b.data.dim() == 0 else None
        inp = self._in_name
        actions: dict[str, Any] = {}
        if p is not None:
            C = a.data * p[0] + b.data * p[1]
            y = x._like(mandel_apply(x.data, C))
            if v is None:
                return y
            actions[inp] = linear_map(SR2, lambda d: d._like(mandel_apply(d.data, C)))
        else:
            ci = ((a - b) / 3.0) * SR2.identity(dtype=x.dtype, device=x.device)
            y = b * x + tr(x) * ci
            if v is None:
                return y
            actions[inp] = lambda d: (product_term(b, d), product_term(tr(d), ci))
        xv, xd = (vol(x), dev(x)) if ca.g or cb.g or ca.h or cb.h else (None, None)
        actions_2: dict[tuple[str, str], Any] = {}
        for k in set(ca.g) | set(cb.g):
            ga, gb = ca.g.get(k), cb.g.get(k)
            add_action(actions, k, times(_combo(ga, xv, gb, xd)))
            add_action_2(actions_2, inp, k, _mixed(ga, gb))
        for (k, m), hk in _pairs(ca.h, cb.h).items():
            ha, hb = hk
            c = _combo(ha, xv, hb, xd)
            actions_2[(k, m)] = lambda p, q, c=c: c * p * q
        return y, *self.propagate_tangents(
            v, self._out_name, actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )


def _combo(a: Any, x: Any, b: Any, z: Any) -> Any:
    """``a x + b z`` skipping absent coefficients (at least one is present)."""
    if a is None:
        return b * z
    if b is None:
        return a * x
    return a * x + b * z


def _mixed(ga: Any, gb: Any) -> Any:
    """Mixed second derivative (strain tangent ``p``, coefficient tangent ``q``)."""
    return lambda p, q: _combo(ga, vol(p), gb, dev(p)) * q


def _pairs(ha: Any, hb: Any) -> dict[tuple[str, str], tuple[Any, Any]]:
    """Coefficient-coefficient Hessian entries of the two moduli, keyed by pair."""
    ha, hb = ha or {}, hb or {}
    return {k: (ha.get(k), hb.get(k)) for k in set(ha) | set(hb)}
