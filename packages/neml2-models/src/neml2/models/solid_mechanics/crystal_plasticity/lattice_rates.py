r"""Rates of the lattice state in the sample frame (small elastic strain, finite rotation).

* ``ElasticStrainRate``: :math:`\dot\varepsilon^e = D - D^p + \mathrm{sym}(W\varepsilon^e -
  \varepsilon^e W)` (the commutator of a skew and a symmetric tensor is symmetric);
* ``OrientationRate``: lattice spin :math:`\omega = W - W^p + \mathrm{skew}(D^p\varepsilon^e -
  \varepsilon^e D^p)`.

Both are linear in the rates and bilinear in (rate, elastic strain); tangents follow by the
product rule.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, WR2, r2_from_sr2, r2_from_wr2, skew, sym

__all__ = ["ElasticStrainRate", "OrientationRate", "commutator"]


def commutator(a: Any, b: Any) -> Any:
    """``a b − b a`` of two full (R2) tensors."""
    return a @ b - b @ a


@register_neml2_object("ElasticStrainRate")
class ElasticStrainRate(Model):
    """Elastic strain rate D - D^p + sym(W e - e W)."""

    hit = HitSchema(
        input("elastic_strain", SR2, "Elastic strain e"),
        input("deformation_rate", SR2, "Deformation rate D"),
        input("vorticity", WR2, "Vorticity W"),
        input("plastic_deformation_rate", SR2, "Plastic deformation rate D^p"),
        output("elastic_strain_rate", SR2, "Elastic strain rate"),
    )

    def forward(self, e: Any, D: Any, w: Any, Dp: Any, *, v: Any = None) -> Any:
        """Elastic strain rate and (with ``v``) its tangents."""
        E, W = r2_from_sr2(e), r2_from_wr2(w)
        y = D - Dp + sym(commutator(W, E))
        if v is None:
            return y
        actions = {
            "elastic_strain": lambda d: sym(commutator(W, r2_from_sr2(d))),
            "deformation_rate": lambda d: d,
            "vorticity": lambda d: sym(commutator(r2_from_wr2(d), E)),
            "plastic_deformation_rate": lambda d: -d,
        }
        return y, *self.propagate_tangents(v, "elastic_strain_rate", actions, output=y)


@register_neml2_object("OrientationRate")
class OrientationRate(Model):
    """Lattice spin W - W^p + skew(D^p e - e D^p)."""

    hit = HitSchema(
        input("elastic_strain", SR2, "Elastic strain e"),
        input("vorticity", WR2, "Vorticity W"),
        input("plastic_deformation_rate", SR2, "Plastic deformation rate D^p"),
        input("plastic_vorticity", WR2, "Plastic vorticity W^p"),
        output("orientation_rate", WR2, "Lattice spin (orientation rate)"),
    )

    def forward(self, e: Any, w: Any, Dp: Any, wp: Any, *, v: Any = None) -> Any:
        """Lattice spin and (with ``v``) its tangents."""
        E, P = r2_from_sr2(e), r2_from_sr2(Dp)
        y = w - wp + skew(commutator(P, E))
        if v is None:
            return y
        actions = {
            "elastic_strain": lambda d: skew(commutator(P, r2_from_sr2(d))),
            "vorticity": lambda d: d,
            "plastic_deformation_rate": lambda d: skew(commutator(r2_from_sr2(d), E)),
            "plastic_vorticity": lambda d: -d,
        }
        return y, *self.propagate_tangents(v, "orientation_rate", actions, output=y)
