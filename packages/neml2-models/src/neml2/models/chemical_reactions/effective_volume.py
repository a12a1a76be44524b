r"""``EffectiveVolume``: volume of a porous composite of several phases.

With reference mass :math:`M`, mass fractions :math:`w_i` (``mass_fractions``), phase densities
:math:`\rho_i` (``densities``, one per mass fraction) and the optional open volume fraction
:math:`\varphi_o` (porosity; without it :math:`\varphi_o = 0`):

.. math::  V = \frac{M}{1 - \varphi_o} \sum_i \frac{w_i}{\rho_i}, \qquad
   \frac{\partial V}{\partial w_i} = \frac{M}{(1 - \varphi_o)\rho_i}, \qquad
   \frac{\partial V}{\partial \varphi_o} = \frac{V}{1 - \varphi_o}, \qquad
   \frac{\partial V}{\partial M} = \frac{V}{M}.

Second derivatives (including a promoted :math:`M`) follow by hyper-dual arithmetic.
Construction checks: the number of ``densities`` must equal that of ``mass_fractions`` (as v3);
beyond v3, at least one mass fraction is needed, names may not repeat (v3 accepts a repeated
name but then fails when evaluated), the densities must be positive and a constant
``reference_mass`` non-negative. (v3 3.1.0 also fails to evaluate with a promoted
``reference_mass``; here it works.)
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter, parameters, var_inputs
from neml2.tensors import Scalar

__all__ = ["EffectiveVolume"]


@register_neml2_object("EffectiveVolume")
class EffectiveVolume(Model):
    """Composite volume M / (1 - phi_o) sum_i w_i / rho_i."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    open_volume_name: str | None
    mass_fraction_names: list[str]
    density_names: list[str]
    hit = HitSchema(
        input("open_volume_fraction", Scalar, "Open volume fraction phi_o (optional)",
              default=None, attr="open_volume_name"),
        var_inputs("mass_fractions", Scalar, "Mass fractions w_i of the phases",
                   attr="mass_fraction_names"),
        output("composite_volume", Scalar, "Composite volume V"),
        parameter("reference_mass", Scalar, "Reference mass M", allow_promotion=True),
        parameters("densities", Scalar, "Density rho_i of each phase", attr="density_names"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        n, nr = len(self.mass_fraction_names), len(self.density_names)
        if n == 0:
            raise ValueError("option 'mass_fractions': at least one variable is required")
        if len(set(self.mass_fraction_names)) != n:
            raise ValueError(
                f"option 'mass_fractions': duplicate variable names in {self.mass_fraction_names}"
            )
        if nr != n:
            raise ValueError(
                f"option 'densities': expected {n} values (one per 'mass_fractions' variable), "
                f"got {nr}"
            )
        for i, name in enumerate(self.density_names):
            rho = self._get_param(name).data
            if not bool(torch.all(rho > 0)):
                raise ValueError(
                    f"option 'densities': value {i} must be positive, got {rho.tolist()}"
                )
        check_literal(self, "reference_mass", lambda t: t >= 0, "must be non-negative")
        phi = [] if self.open_volume_name is None else [self.open_volume_name]
        if self.open_volume_name in self.mass_fraction_names:
            raise ValueError(
                f"option 'open_volume_fraction': '{self.open_volume_name}' is also a mass fraction"
            )
        self._structural = [*phi, *self.mass_fraction_names]

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Composite volume and (with ``v``) its tangents."""
        n = len(self._structural)
        structural, promoted = args[:n], args[n:]
        second = v2 is not None or vh is not None
        need = v is not None
        x = {
            name: HyperDual.variable(val, name, second) if need else HyperDual.lift(val, False)
            for name, val in zip(self._structural, structural, strict=True)
        }
        m = self._get_param("reference_mass", promoted)
        src = self.promoted_input("reference_mass")
        mass = (
            HyperDual.variable(m, src, second)
            if need and src is not None
            else HyperDual.lift(m, second)
        )
        rhos = self._get_param_list(self.density_names)
        s = x[self.mass_fraction_names[0]] / rhos[0]
        for name, rho in zip(self.mass_fraction_names[1:], rhos[1:], strict=True):
            s = s + x[name] / rho
        y = mass * s
        if self.open_volume_name is not None:
            y = y / (1.0 - x[self.open_volume_name])
        out = y.v
        if v is None:
            return out
        actions = {k: scaled_by(gk) for k, gk in y.g.items()}
        actions_2 = {k: (lambda a, b, hk=hk: hk * a * b) for k, hk in (y.h or {}).items()}
        return out, *self.propagate_tangents(
            v, "composite_volume", actions, output=out, v2=v2, vh=vh, actions_2=actions_2
        )
