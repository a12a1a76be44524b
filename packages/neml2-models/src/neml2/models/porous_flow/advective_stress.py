r"""``AdvectiveStress``: :math:`p_s = -\frac{c}{3}J_s^{-5/3}J_t^{-2/3}\,(\mathbf P : \mathbf F)`.

:math:`c` = ``coefficient`` (promotable), :math:`\mathbf F` = ``deformation_gradient`` and
:math:`\mathbf P` = ``pk1_stress`` (R2, :math:`\mathbf P : \mathbf F = P_{ij}F_{ij}`),
:math:`J_s` = ``js`` and :math:`J_t` = ``jt`` (optional Scalar inputs; a missing one counts as 1).
With :math:`k = -\frac{c}{3}J_s^{-5/3}J_t^{-2/3}` and :math:`q = \mathbf P:\mathbf F`:
:math:`\partial p_s/\partial\mathbf F = k\mathbf P`, :math:`\partial p_s/\partial\mathbf P =
k\mathbf F`, :math:`\partial p_s/\partial J_s = -\frac53 p_s/J_s`,
:math:`\partial p_s/\partial J_t = -\frac23 p_s/J_t`, :math:`\partial p_s/\partial c = k q/c`.
Second derivatives: the product rule over the factors :math:`c`, :math:`J_s^{-5/3}`,
:math:`J_t^{-2/3}` and the bilinear :math:`q` (:math:`\partial^2 q/\partial\mathbf F
\partial\mathbf P = \mathbb I`), with :math:`\partial^2 J^{-r}/\partial J^2 = r(r+1)J^{-r-2}`.
Any coefficient is accepted (as in NEML2 v3). Difference from v3: with a promoted
``coefficient`` v3.1.0 fails on evaluation (``IndexError``); here it works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action_2
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import R2, Scalar, inner, pow

__all__ = ["AdvectiveStress"]

_RS = 5.0 / 3.0
_RT = 2.0 / 3.0


@register_neml2_object("AdvectiveStress")
class AdvectiveStress(Model):
    """Advective stress -(c/3) Js^(-5/3) Jt^(-2/3) P:F."""

    SUPPORTS_SECOND_ORDER = True
    js: str | None
    jt: str | None
    hit = HitSchema(
        input("js", Scalar, "Swelling volume ratio Js (optional, else 1)", default=None),
        input("jt", Scalar, "Thermal volume ratio Jt (optional, else 1)", default=None),
        input("deformation_gradient", R2, "Deformation gradient F"),
        input("pk1_stress", R2, "First Piola-Kirchhoff stress P"),
        output("advective_stress", Scalar, "Advective stress"),
        parameter("coefficient", Scalar, "Coefficient c", allow_promotion=True),
    )  # fmt: skip

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Advective stress and (with ``v``) its tangents."""
        i = 0
        Js = Jt = None
        if self.js is not None:
            Js, i = args[0], 1
        if self.jt is not None:
            Jt, i = args[i], i + 1
        F, P, promoted = args[i], args[i + 1], args[i + 2 :]
        c = self._get_param("coefficient", promoted)
        # factors: c, s = Js^-5/3, t = Jt^-2/3, q = P:F (with y = -(1/3) c s t q)
        s = 1.0 if Js is None else pow(Js, -_RS)
        t = 1.0 if Jt is None else pow(Jt, -_RT)
        q = inner(P, F)
        cst = c * s * t * (-1.0 / 3.0)
        y = cst * q
        if v is None:
            return y
        # first derivatives of each factor and the "rest" products
        rest_c = s * t * q * (-1.0 / 3.0)
        ds = None if Js is None else -_RS * s / Js
        dt = None if Jt is None else -_RT * t / Jt
        names: dict[str, Any] = {}
        act: dict[str, Callable[[Any], Any]] = {
            "deformation_gradient": lambda d: cst * inner(P, d),
            "pk1_stress": lambda d: cst * inner(F, d),
        }
        src_c = self.promoted_input("coefficient")
        if src_c is not None:
            act[src_c] = lambda d: rest_c * d
            names["c"] = src_c
        if ds is not None:
            gs = ds * c * t * q * (-1.0 / 3.0)
            act["js"] = lambda d: gs * d
            names["s"] = "js"
        if dt is not None:
            gt = dt * c * s * q * (-1.0 / 3.0)
            act["jt"] = lambda d: gt * d
            names["t"] = "jt"
        if v2 is None and vh is None:
            return y, *self.propagate_tangents(v, "advective_stress", act, output=y)
        a2: dict[tuple[str, str], Any] = {}
        F_, P_ = "deformation_gradient", "pk1_stress"
        add_action_2(a2, F_, P_, lambda a, b: cst * inner(a, b))
        # derivative of each scalar factor times the rest, w.r.t. the pair (factor, F or P)
        coef: dict[str, Any] = {  # d(y)/d(factor) / q
            "c": s * t * (-1.0 / 3.0),
            "s": None if ds is None else ds * c * t * (-1.0 / 3.0),
            "t": None if dt is None else dt * c * s * (-1.0 / 3.0),
        }
        for k, name in names.items():
            add_action_2(a2, name, F_, _times_inner(coef[k], P))
            add_action_2(a2, name, P_, _times_inner(coef[k], F))
        # products of two different scalar factors, and the diagonal second derivatives
        val: dict[str, Any] = {"c": c, "s": s, "t": t}
        der: dict[str, Any] = {"c": 1.0, "s": ds, "t": dt}
        keys = list(names)
        for i1, k1 in enumerate(keys):
            for k2 in keys[i1 + 1 :]:
                other = next(val[k] for k in "cst" if k not in (k1, k2))
                g = der[k1] * der[k2] * other * q * (-1.0 / 3.0)
                add_action_2(a2, names[k1], names[k2], _times(g))
        if Js is not None:
            hs = _RS * (_RS + 1.0) * s / (Js * Js) * c * t * q * (-1.0 / 3.0)
            add_action_2(a2, "js", "js", _times(hs))
        if Jt is not None:
            ht = _RT * (_RT + 1.0) * t / (Jt * Jt) * c * s * q * (-1.0 / 3.0)
            add_action_2(a2, "jt", "jt", _times(ht))
        return y, *self.propagate_tangents(
            v, "advective_stress", act, output=y, v2=v2, vh=vh, actions_2=a2
        )


def _times(g: Any) -> Callable[[Any, Any], Any]:
    """Second-order action ``(a, b) ↦ g a b`` for two Scalar tangents."""
    return lambda a, b: g * a * b


def _times_inner(g: Any, T: Any) -> Callable[[Any, Any], Any]:
    """Second-order action ``(a, b) ↦ g a (T : b)``: Scalar tangent ``a``, R2 tangent ``b``."""
    return lambda a, b: (g * a) * inner(T, b)
