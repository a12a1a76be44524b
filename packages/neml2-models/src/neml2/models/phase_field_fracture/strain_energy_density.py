r"""``LinearIsotropicStrainEnergyDensity``: active/inactive split of the linear isotropic
strain energy density of the (Mandel SR2) ``strain`` :math:`\varepsilon`.

With :math:`t = \operatorname{tr}\varepsilon`, :math:`e = \operatorname{dev}\varepsilon`:

* ``decomposition = NONE`` (default): :math:`\psi^+ = \tfrac12 K t^2 + G\, e:e`, :math:`\psi^- = 0`;
  :math:`\psi^{+\prime}[a] = K t\, \operatorname{tr} a + 2G\, e:a`,
  :math:`\psi^{+\prime\prime}[a, b] = K \operatorname{tr}a \operatorname{tr}b
  + 2G \operatorname{dev}a : b`.
* ``VOLDEV``: :math:`\psi^+ = \tfrac12 K \langle t\rangle_+^2 + G\, e:e`,
  :math:`\psi^- = \tfrac12 K \langle t\rangle_-^2`; derivatives as above with :math:`K t` replaced
  by :math:`K\langle t\rangle_\pm` and :math:`K` in the second derivative by :math:`K H(\pm t)`.
* ``SPECTRAL`` is not supported (refused at construction; NEML2 v3 refuses it when called).

:math:`K, G` are converted from the two ``coefficients`` / ``coefficient_types`` exactly as for
``LinearIsotropicElasticity`` (any pair; v3 converts only (E, nu) and (K, G)) and stored, as in
NEML2 v3, as the parameters ``K`` and ``G``. The coefficients must be literals or ``[Tensors]``
entries (v3 refuses variables as well).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import product_term
from neml2.models.model import Model
from neml2.models.solid_mechanics.elasticity._elastic_constants import (
    check_KG,
    declare_coefficients,
    isotropic_KG,
)
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import SR2, Scalar, dev, heaviside, inner, macaulay, tr

__all__ = ["LinearIsotropicStrainEnergyDensity"]

_DECOMPOSITIONS = ("NONE", "VOLDEV")


@register_neml2_object("LinearIsotropicStrainEnergyDensity")
class LinearIsotropicStrainEnergyDensity(Model):
    """Linear isotropic strain energy density split into active and inactive parts."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("strain", SR2, "Strain"),
        output("active_strain_energy_density", Scalar, "Active (degraded) energy psi+"),
        output("inactive_strain_energy_density", Scalar, "Inactive energy psi-"),
        option("coefficients", list, "Two elastic constants (literals or [Tensors] entries)"),
        option("coefficient_types", list,
               "Types of the coefficients, e.g. 'YOUNGS_MODULUS POISSONS_RATIO'"),
        option("decomposition", str, "Energy split: NONE or VOLDEV (SPECTRAL is not supported)",
               default="NONE"),
    )  # fmt: skip

    active_strain_energy_density: str
    inactive_strain_energy_density: str
    coefficients: list[str]
    coefficient_types: list[str]
    decomposition: str

    def __init__(self, **hit_values: Any) -> None:
        factory = hit_values.get("factory")
        super().__init__(**hit_values)
        if self.decomposition == "SPECTRAL":
            raise ValueError(
                "option 'decomposition': SPECTRAL is not supported (as in NEML2 v3); "
                "use NONE or VOLDEV"
            )
        if self.decomposition not in _DECOMPOSITIONS:
            raise ValueError(
                f"option 'decomposition': unknown decomposition {self.decomposition!r}; "
                f"expected one of {list(_DECOMPOSITIONS)}"
            )
        syms = declare_coefficients(
            self, self.coefficients, self.coefficient_types, factory, count=2
        )
        if any(self.promoted_input(s) is not None for s in syms):
            raise ValueError(
                "option 'coefficients': must be literal values or [Tensors] entries, "
                f"got {self.coefficients}"
            )
        check_KG(self, syms)
        K, G = isotropic_KG({s: self._get_param(s).to(dtype=torch.float64) for s in syms})
        # v3 stores the converted moduli: replace the declared coefficients by K and G
        for s in syms:
            self.remove_typed_parameter(s)
        self.register_typed_parameter("K", K.v)
        self.register_typed_parameter("G", G.v)

    def forward(self, e: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """psi+ and psi- and (with ``v``) their first and second tangents."""
        K, G = self._get_param("K"), self._get_param("G")
        t = tr(e)
        s = dev(e)
        dev_energy = G * inner(s, s)
        if self.decomposition == "NONE":
            tp = t
            pos = 0.5 * K * t * t + dev_energy
            neg = 0.0 * t
        else:
            tp = macaulay(t)
            tn = t - tp
            pos = 0.5 * K * tp * tp + dev_energy
            neg = 0.5 * K * tn * tn
        if v is None:
            return pos, neg
        kt, g2 = K * tp, 2.0 * G
        kh = K if self.decomposition == "NONE" else K * heaviside(t)
        names = (self.active_strain_energy_density, self.inactive_strain_energy_density)
        res_p = self.propagate_tangents(
            v, names[0], {"strain": lambda d: kt * tr(d) + g2 * inner(s, d)},
            output=pos, v2=v2, vh=vh,
            actions_2={("strain", "strain"): lambda a, b: (
                product_term(kh * tr(a), tr(b)), product_term(g2, inner(dev(a), b)))},
        )  # fmt: skip
        if self.decomposition == "NONE":
            res_n = self.propagate_tangents(v, names[1], {}, output=neg, v2=v2, vh=vh)
        else:
            ktn, khn = K * tn, K - kh
            res_n = self.propagate_tangents(
                v, names[1], {"strain": lambda d: ktn * tr(d)}, output=neg, v2=v2, vh=vh,
                actions_2={("strain", "strain"): lambda a, b: khn * tr(a) * tr(b)},
            )  # fmt: skip
        return pos, neg, *({**a, **b} for a, b in zip(res_p, res_n, strict=True))
