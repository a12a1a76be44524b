r"""``GursonCavitation``: :math:`\dot\phi = (1 - \phi)\,\mathrm{tr}(\dot\varepsilon_p)`."""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, Scalar, tr

__all__ = ["GursonCavitation"]


@register_neml2_object("GursonCavitation")
class GursonCavitation(Model):
    """Void growth by plastic volume change."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("plastic_strain_rate", SR2, "Plastic strain rate"),
        input("void_fraction", Scalar, "Void fraction"),
        output("void_fraction_rate", Scalar, "Void fraction rate"),
    )

    def forward(self, ep: Any, phi: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Void fraction rate and (with ``v``) its tangents."""
        t = tr(ep)
        y = (1.0 - phi) * t
        if v is None:
            return y
        actions = {
            "plastic_strain_rate": lambda d: (1.0 - phi) * tr(d),
            "void_fraction": lambda d: -(d * t),
        }
        actions_2 = {
            ("plastic_strain_rate", "void_fraction"): lambda a, b: -(tr(a) * b),
            ("void_fraction", "plastic_strain_rate"): lambda a, b: -(a * tr(b)),
        }
        return y, *self.propagate_tangents(
            v, "void_fraction_rate", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )
