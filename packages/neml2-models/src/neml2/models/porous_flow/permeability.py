r"""Permeability :math:`K(\varphi)` of the porosity :math:`\varphi` (``porosity``).

``PowerLawPermeability``: :math:`K = K_0\,(\varphi/\varphi_0)^p`
(``reference_permeability``, ``reference_porosity``, ``exponent``);
:math:`\mathrm{d}K/\mathrm{d}\varphi = pK/\varphi`.

``ExponentialLawPermeability``: :math:`K = K_0\,\exp(-a(\varphi - \varphi_0))` (``scale`` =
:math:`a`; note the sign: :math:`K` decreases with :math:`\varphi` for :math:`a > 0`, as in
NEML2 v3); :math:`\mathrm{d}K/\mathrm{d}\varphi = -aK`.

``KozenyCarmanPermeability``: :math:`K = K_0\,\dfrac{(\varphi/(1-\varphi))^n}
{(\varphi_0/(1-\varphi_0))^m}` (``n``, ``m``);
:math:`\mathrm{d}K/\mathrm{d}\varphi = nK/(\varphi(1-\varphi))`. This is v3's form: both
exponents act on the void ratio :math:`e = \varphi/(1-\varphi)`, so :math:`K(\varphi_0) = K_0`
only for :math:`n = m`, and the classical Kozeny-Carman :math:`\varphi^3/(1-\varphi)^2` is not a
special case (:math:`n = m = 3` gives the void-ratio form
:math:`K_0 (e/e_0)^3 = K_0\frac{\varphi^3}{(1-\varphi)^3}\frac{(1-\varphi_0)^3}{\varphi_0^3}`).

None of the parameters is promotable; second derivatives by hyper-dual arithmetic. Powers
use ``torch.pow`` semantics (as v3).
Construction checks (v3 accepts any value): ``reference_permeability`` :math:`\le 0` and
``reference_porosity`` :math:`\le 0` are refused, for Kozeny-Carman also
``reference_porosity`` :math:`\ge 1` (the void ratio :math:`e_0` must be positive and finite).
Exponents and ``scale`` may have either sign (the laws stay well defined).
"""

from __future__ import annotations

from neml2._registry import register_neml2_object
from neml2.models._checks import check_literal
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_exp, hd_pow
from neml2.schema import HitSchema, SchemaField, input, output, parameter
from neml2.tensors import Scalar

__all__ = ["ExponentialLawPermeability", "KozenyCarmanPermeability", "PowerLawPermeability"]


def _schema(*params: SchemaField) -> HitSchema:
    return HitSchema(
        input("porosity", Scalar, "Porosity phi"),
        output("permeability", Scalar, "Permeability K"),
        parameter("reference_permeability", Scalar, "Reference permeability K0 (> 0)"),
        parameter("reference_porosity", Scalar, "Reference porosity phi0 (> 0)"),
        *params,
    )


class _Permeability(ScalarMap):
    """Permeability law with positive reference permeability and porosity."""

    OUTPUT = "permeability"
    INPUTS = ("porosity",)

    def __post_init__(self) -> None:
        check_literal(self, "reference_permeability", lambda t: t > 0, "must be positive")
        check_literal(self, "reference_porosity", lambda t: t > 0, "must be positive")


@register_neml2_object("PowerLawPermeability")
class PowerLawPermeability(_Permeability):
    """Power-law permeability K0 (phi/phi0)^p."""

    PARAMS = ("reference_permeability", "reference_porosity", "exponent")
    hit = _schema(parameter("exponent", Scalar, "Exponent p"))

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Permeability."""
        r = x["porosity"] / p["reference_porosity"]
        return p["reference_permeability"] * hd_pow(r, p["exponent"])


@register_neml2_object("ExponentialLawPermeability")
class ExponentialLawPermeability(_Permeability):
    """Exponential permeability K0 exp(-a (phi - phi0))."""

    PARAMS = ("reference_permeability", "reference_porosity", "scale")
    hit = _schema(parameter("scale", Scalar, "Scale a"))

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Permeability."""
        d = x["porosity"] - p["reference_porosity"]
        return p["reference_permeability"] * hd_exp(-(p["scale"] * d))


@register_neml2_object("KozenyCarmanPermeability")
class KozenyCarmanPermeability(_Permeability):
    """Kozeny-Carman permeability K0 (phi/(1-phi))^n / (phi0/(1-phi0))^m."""

    PARAMS = ("reference_permeability", "reference_porosity", "n", "m")
    hit = _schema(
        parameter("n", Scalar, "Exponent n of the void ratio phi/(1-phi)"),
        parameter("m", Scalar, "Exponent m of the reference void ratio phi0/(1-phi0)"),
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        check_literal(self, "reference_porosity", lambda t: t < 1, "must be less than 1")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """Permeability."""
        phi, phi0 = x["porosity"], p["reference_porosity"]
        e0 = phi0 / (1.0 - phi0)
        return p["reference_permeability"] * hd_pow(phi / (1.0 - phi), p["n"]) / hd_pow(e0, p["m"])
