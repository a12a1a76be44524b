r"""Slip rates of the slip systems and their sum.

* ``PowerLawSlipRule``: :math:`\dot\gamma_i = \dot\gamma_0\,|r_i|^{n-1} r_i`,
  :math:`r_i = \tau_i/\hat\tau_i`; derivatives
  :math:`\partial\dot\gamma_i/\partial r_i = \dot\gamma_0\,n\,|r_i|^{n-1}`,
  :math:`\partial\dot\gamma_i/\partial n = \dot\gamma_i \ln|r_i|` (0 at :math:`r_i = 0`).
* ``SumSlipRates``: :math:`\sum_i |\dot\gamma_i|` (reduces the slip sub-batch axis).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.crystal_plasticity._geometry import check_same_sub_batch
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import Scalar, abs, gt, log, pow, sign, sum as region_sum, where

__all__ = ["PowerLawSlipRule", "SumSlipRates"]


@register_neml2_object("PowerLawSlipRule")
class PowerLawSlipRule(Model):
    """Power-law slip rate gamma0 |tau/tau_hat|^(n-1) tau/tau_hat of each slip system."""

    hit = HitSchema(
        input("resolved_shears", Scalar, "Resolved shear stress tau_i"),
        input("slip_strengths", Scalar, "Slip system strength tau_hat_i"),
        output("slip_rates", Scalar, "Slip rate of each slip system"),
        parameter("gamma0", Scalar, "Reference slip rate", allow_promotion=True),
        parameter("n", Scalar, "Rate sensitivity exponent", allow_promotion=True),
    )

    def forward(self, tau: Any, strength: Any, *promoted: Any, v: Any = None) -> Any:
        """Slip rates and (with ``v``) their tangents."""
        check_same_sub_batch(self, {"resolved_shears": tau, "slip_strengths": strength})
        g0 = self._get_param("gamma0", promoted)
        n = self._get_param("n", promoted)
        r = tau / strength
        a = abs(r)
        p = pow(a, n - 1.0)
        rate = g0 * p * r
        if v is None:
            return rate
        drate_dr = g0 * n * p
        actions: dict[str, Any] = {
            "resolved_shears": scaled_by(drate_dr / strength),
            "slip_strengths": scaled_by(-drate_dr * r / strength),
        }
        nonzero = gt(a, 0.0)
        log_a = where(nonzero, log(where(nonzero, a, 1.0)), 0.0)
        add_action(actions, self.promoted_input("gamma0"), scaled_by(p * r))
        add_action(actions, self.promoted_input("n"), scaled_by(rate * log_a))
        return rate, *self.propagate_tangents(v, "slip_rates", actions, output=rate)


@register_neml2_object("SumSlipRates")
class SumSlipRates(Model):
    """Sum of the absolute slip rates over the slip systems."""

    hit = HitSchema(
        input("slip_rates", Scalar, "Slip rate of each slip system"),
        output("sum_slip_rates", Scalar, "Sum of the absolute slip rates"),
    )

    def forward(self, rates: Any, *, v: Any = None) -> Any:
        """Sum of |rates| and (with ``v``) its tangents."""
        if not rates.sub_batch_ndim:
            raise ValueError(
                f"SumSlipRates '{self._hit_name}': input 'slip_rates' has no sub-batch axis of "
                f"slip systems to sum over (batch shape {tuple(rates.batch_shape)})"
            )
        total = region_sum(abs(rates).sub_batch, -1)
        if v is None:
            return total
        s = sign(rates)
        actions = {"slip_rates": lambda d: region_sum((s * d).sub_batch, -1)}
        return total, *self.propagate_tangents(v, "sum_slip_rates", actions, output=total)
