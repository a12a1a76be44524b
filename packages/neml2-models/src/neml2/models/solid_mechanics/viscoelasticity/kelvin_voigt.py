r"""``KelvinVoigtElement``: a spring and a dashpot in parallel,

.. math::  \sigma = K\,\varepsilon + \eta\,\dot\varepsilon

with :math:`\dot\varepsilon` = ``<strain>_rate`` (e.g. from ``SR2VariableRate``). Derivatives:
:math:`\partial\sigma/\partial\varepsilon = K`, :math:`\partial\sigma/\partial\dot\varepsilon = \eta`,
:math:`\partial\sigma/\partial K = \varepsilon`, :math:`\partial\sigma/\partial\eta = \dot\varepsilon`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.models.solid_mechanics._actions import add_action
from neml2.models.solid_mechanics.viscoelasticity._checks import check_sign
from neml2.schema import HitSchema, derived_input, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["KelvinVoigtElement"]


@register_neml2_object("KelvinVoigtElement")
class KelvinVoigtElement(Model):
    """Kelvin-Voigt element: stress = modulus * strain + viscosity * strain rate."""

    hit = HitSchema(
        input("strain", SR2, "Strain"),
        derived_input("strain", SR2, suffix="_rate"),
        output("stress", SR2, "Stress"),
        parameter("modulus", Scalar, "Spring modulus K", allow_promotion=True),
        parameter("viscosity", Scalar, "Dashpot viscosity eta", allow_promotion=True),
    )

    def __post_init__(self) -> None:
        check_sign(self, ("modulus", "viscosity"))

    def forward(self, e: Any, e_rate: Any, *promoted: Any, v: Any = None) -> Any:
        """Stress and (with ``v``) its tangents."""
        k = self._get_param("modulus", promoted)
        eta = self._get_param("viscosity", promoted)
        s = k * e + eta * e_rate
        if v is None:
            return s
        actions: dict[str, Any] = {"strain": lambda d: k * d, "strain_rate": lambda d: eta * d}
        add_action(actions, self.promoted_input("modulus"), lambda d: d * e)
        add_action(actions, self.promoted_input("viscosity"), lambda d: d * e_rate)
        return s, *self.propagate_tangents(v, "stress", actions, output=s)
