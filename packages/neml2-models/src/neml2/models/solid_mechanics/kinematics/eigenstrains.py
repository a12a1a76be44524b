r"""Isotropic eigenstrains :math:`\varepsilon_g = e\,I`.

* ``ThermalEigenstrain``: :math:`e = \alpha\,(T - T_0)` (:math:`\alpha` = CTE).
* ``VolumeChangeEigenstrain``: :math:`e = (V/V_0)^{1/3} - 1`.
* ``PhaseTransformationEigenstrain``: :math:`e = f\,\Delta v` (phase fraction times volume
  fraction change).

The scalar :math:`e` (and its first/second derivatives) comes from hyper-dual arithmetic; the
SR2 output and its tangents are :math:`e\,I`, :math:`\dot e\,I`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models._checks import require_positive
from neml2.models._scalar_function import HyperDual, ScalarMap, hd_pow
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import SR2, Scalar

__all__ = ["PhaseTransformationEigenstrain", "ThermalEigenstrain", "VolumeChangeEigenstrain"]


class _Eigenstrain(ScalarMap):
    """Scalar map ``e`` promoted to the SR2 ``e I``."""

    OUTPUT = "eigenstrain"
    ACCEPTS_DEFERRED_TANGENTS = False  # maps the scalar map's tangents: they must be evaluated

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Eigenstrain and (with ``v``) its tangents."""
        res = super().forward(*args, v=v, v2=v2, vh=vh)
        if v is None:
            return _iso(res)
        e, *rest = res
        out: list[Any] = [_iso(e)]
        for d in rest:
            out.append({k: _iso_tree(t) for k, t in d.items()})
        return tuple(out)


def _iso(e: Scalar) -> SR2:
    eye = SR2.identity(e.data.dtype, e.data.device)
    return e * eye


def _iso_tree(t: Any) -> Any:
    if isinstance(t, dict):
        return {k: _iso_tree(x) for k, x in t.items()}
    return _iso(t)


@register_neml2_object("ThermalEigenstrain")
class ThermalEigenstrain(_Eigenstrain):
    """Thermal expansion eigenstrain."""

    INPUTS = ("temperature",)
    PARAMS = ("reference_temperature", "CTE")
    hit = HitSchema(
        input("temperature", Scalar, "Temperature"),
        output("eigenstrain", SR2, "Eigenstrain"),
        parameter("reference_temperature", Scalar, "Reference (stress-free) temperature"),
        parameter("CTE", Scalar, "Coefficient of thermal expansion", allow_promotion=True),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`\\alpha(T - T_0)`."""
        return p["CTE"] * (x["temperature"] - p["reference_temperature"])


@register_neml2_object("VolumeChangeEigenstrain")
class VolumeChangeEigenstrain(_Eigenstrain):
    """Eigenstrain of an isotropic volume change."""

    INPUTS = ("volume",)
    PARAMS = ("reference_volume",)
    hit = HitSchema(
        input("volume", Scalar, "Current volume"),
        output("eigenstrain", SR2, "Eigenstrain"),
        parameter("reference_volume", Scalar, "Reference volume"),
    )

    def __post_init__(self) -> None:
        require_positive(self, "reference_volume")

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`(V/V_0)^{1/3} - 1`."""
        third = HyperDual.lift(1.0 / 3.0, x["volume"].h is not None)
        return hd_pow(x["volume"] / p["reference_volume"], third) - 1.0


@register_neml2_object("PhaseTransformationEigenstrain")
class PhaseTransformationEigenstrain(_Eigenstrain):
    """Eigenstrain of a phase transformation with a volume change."""

    INPUTS = ("phase_fraction", "volume_fraction_change")
    hit = HitSchema(
        input("phase_fraction", Scalar, "Phase fraction"),
        input("volume_fraction_change", Scalar, "Volume fraction change"),
        output("eigenstrain", SR2, "Eigenstrain"),
    )

    def evaluate(self, x: dict[str, HyperDual], p: dict[str, HyperDual]) -> HyperDual:
        """:math:`f\\,\\Delta v`."""
        return x["phase_fraction"] * x["volume_fraction_change"]
