r"""Initial-guess predictors for ``ImplicitUpdate``: constant and linear extrapolation.

For each unknown :math:`u` listed in ``unknowns_SR2``, ``unknowns_Scalar``, ``unknowns_MRP``,
``unknowns_R2`` (outputs in that type order), with :math:`u_1` = ``u~1``, :math:`u_2` = ``u~2``
and :math:`t, t_1, t_2` = ``<time>``, ``<time>~1``, ``<time>~2``:

* ``ConstantExtrapolationPredictor``: :math:`u = u_1`;
* ``LinearExtrapolationPredictor``:
  :math:`u = u_1 + (u_1 - u_2)\,(t - t_1)/(t_1 - t_2)`, falling back to :math:`u_1` where
  :math:`|t_1 - t_2| \le \epsilon` (machine epsilon of the dtype).

``cold = 'u:var ...'`` replaces the fallback (and, for the constant predictor, the value) by the
variable ``var`` where :math:`|t_1 - t_2| \le \epsilon` — the first step of a transient.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, option
from neml2.tensors import MRP, R2, SR2, Scalar, TensorWrapper, where

__all__ = ["ConstantExtrapolationPredictor", "LinearExtrapolationPredictor"]

_TYPES: tuple[tuple[str, Any], ...] = (("SR2", SR2), ("Scalar", Scalar), ("MRP", MRP), ("R2", R2))


def _parse_cold(tokens: list[str], unknowns: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for tok in tokens:
        u, sep, var = tok.partition(":")
        if not sep or not u or not var:
            raise ValueError(f"option 'cold': expected 'unknown:variable', got {tok!r}")
        if u not in unknowns:
            raise ValueError(
                f"option 'cold': '{u}' is not one of the unknowns {list(unknowns)} ({tok!r})"
            )
        if u in out:
            raise ValueError(f"option 'cold': unknown '{u}' given twice")
        out[u] = var
    return out


class _Extrapolation(Model):
    """Shared option handling and I/O of the extrapolation predictors."""

    LINEAR = False
    hit = HitSchema(
        option("unknowns_SR2", list, "SR2 unknowns to predict", default=()),
        option("unknowns_Scalar", list, "Scalar unknowns to predict", default=()),
        option("unknowns_MRP", list, "MRP unknowns to predict", default=()),
        option("unknowns_R2", list, "R2 unknowns to predict", default=()),
        option(
            "cold", list,
            "Cold-start values 'unknown:variable' used where |t~1 - t~2| <= eps", default=(),
        ),
        option("time", str, "Time variable", default="t"),
    )  # fmt: skip

    time: str
    cold: list[str]

    def __post_init__(self) -> None:
        unknowns: dict[str, Any] = {}
        for key, cls in _TYPES:
            for u in getattr(self, f"unknowns_{key}") or ():
                if u in unknowns:
                    raise ValueError(f"option 'unknowns_{key}': unknown '{u}' listed twice")
                unknowns[u] = cls
        if not unknowns:
            raise ValueError(
                "options 'unknowns_SR2/Scalar/MRP/R2': at least one unknown is required"
            )
        self._cold = _parse_cold(list(self.cold or ()), unknowns)
        t = self.time
        ins: dict[str, Any] = {f"{u}~1": c for u, c in unknowns.items()}
        if self.LINEAR:
            ins.update({f"{u}~2": c for u, c in unknowns.items()})
        if self.LINEAR or self._cold:
            ins.update({t: Scalar, f"{t}~1": Scalar, f"{t}~2": Scalar})
        for u, var in self._cold.items():
            if var in ins and ins[var] is not unknowns[u]:
                raise ValueError(f"option 'cold': variable '{var}' is used with two types")
            ins.setdefault(var, unknowns[u])
        self.input_spec = ins
        self.output_spec = dict(unknowns)
        self.output_priorities = {u: None for u in unknowns}
        self._unknowns = unknowns

    def forward(self, *args: Any, v: Any = None) -> Any:
        """Predicted unknowns (always a tuple) and, with ``v``, their tangents."""
        x = dict(zip(self.input_spec, args, strict=True))
        tn = self.time
        fallback = None
        if self.LINEAR or self._cold:
            t, t1, t2 = x[tn], x[f"{tn}~1"], x[f"{tn}~2"]
            d12 = t1 - t2
            eps = torch.finfo(d12.data.dtype).eps
            fallback = Scalar._wrap(d12.data.abs() <= eps)
            hot = 1.0 - Scalar._wrap(fallback.data.to(d12.data.dtype))
            safe = where(fallback, 1.0, d12)
        outs: list[TensorWrapper] = []
        v_out: dict[str, Any] = {}
        for u in self._unknowns:
            u1 = x[f"{u}~1"]
            cold = x[self._cold[u]] if u in self._cold else None
            actions: dict[str, Any] = {}
            if self.LINEAR:
                assert fallback is not None
                u2 = x[f"{u}~2"]
                s = (t - t1) / safe
                du = u1 - u2
                pred = u1 + du * s
                base = cold if cold is not None else u1
                y = where(fallback, base, pred)
                sh, w1 = s * hot, du / safe * hot
                c1 = sh + (hot if cold is not None else 1.0)
                actions[f"{u}~1"] = lambda d, c1=c1: d * c1
                actions[f"{u}~2"] = lambda d, sh=sh: -(d * sh)
                actions[tn] = lambda d, w=w1: d * w
                actions[f"{tn}~1"] = lambda d, w=w1, s1=(t - t2) / safe: -(d * w * s1)
                actions[f"{tn}~2"] = lambda d, w=w1, s=s: d * w * s
            elif cold is not None:
                assert fallback is not None
                y = where(fallback, cold, u1)
                actions[f"{u}~1"] = lambda d, h=hot: d * h
            else:
                y = u1
                actions[f"{u}~1"] = lambda d: d
            if cold is not None:
                c = 1.0 - hot
                prev = actions.get(self._cold[u])
                actions[self._cold[u]] = (
                    (lambda d, c=c: d * c)
                    if prev is None
                    else (lambda d, c=c, p=prev: p(d) + d * c)
                )
            outs.append(y)
            if v is not None:
                v_out.update(self.apply_chain_rule(v, u, actions, output=y))
        return tuple(outs) if v is None else (*outs, v_out)


@register_neml2_object("ConstantExtrapolationPredictor")
class ConstantExtrapolationPredictor(_Extrapolation):
    """Predict each unknown by its previous value (or a cold-start variable on the first step)."""

    LINEAR = False


@register_neml2_object("LinearExtrapolationPredictor")
class LinearExtrapolationPredictor(_Extrapolation):
    """Predict each unknown by linear extrapolation in time from its last two values."""

    LINEAR = True
