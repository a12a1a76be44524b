r"""Initial guesses for the implicit crystal-plasticity update.

* ``CrystalPlasticityStrainPredictor``: where :math:`|\varepsilon^e_n| <` ``threshold`` (a
  virgin or nearly unloaded lattice), :math:`\varepsilon^e = \varepsilon^e_n + s\,D\,(t - t_n)`;
  elsewhere :math:`\varepsilon^e = \varepsilon^e_n` (``s`` = ``scale``).
* ``CrystalPlasticityDeformationGradientPredictor``: with the trial elastic part
  :math:`F^{e*} = F F^p_n{}^{-1}`, where :math:`|\mathrm{sym}(F^{e*}) - I| >` ``threshold``:
  :math:`F^p = (I + s(F^{e*} - I))^{-1} F`; elsewhere :math:`F^p = F^p_n`.

Tangents are those of the branch taken (the switch is piecewise constant).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, derived_input, input, output, parameter
from neml2.tensors import R2, SR2, Scalar, gt, inv, lt, norm, sym

__all__ = ["CrystalPlasticityDeformationGradientPredictor", "CrystalPlasticityStrainPredictor"]


def _mask(cond: Any, like: Any) -> Any:
    """A bool Scalar as 1.0/0.0 in the floating dtype of ``like``."""
    return cond._like(cond.data.to(like.data.dtype), Scalar)


@register_neml2_object("CrystalPlasticityStrainPredictor")
class CrystalPlasticityStrainPredictor(Model):
    """Elastic strain guess e~1 + scale D (t - t~1) for a (nearly) virgin lattice."""

    hit = HitSchema(
        output("elastic_strain", SR2, "Predicted elastic strain"),
        input("deformation_rate", SR2, "Deformation rate D"),
        input("time", Scalar, "Time", default="t"),
        derived_input("time", Scalar, suffix="~1"),
        derived_input("elastic_strain", SR2, suffix="~1"),
        parameter("scale", Scalar, "Fraction s of the elastic strain increment", default="1.0"),
        parameter("threshold", Scalar, "Predict only where |e~1| < threshold", default="1e-3"),
    )

    def forward(self, D: Any, t: Any, t_old: Any, e_old: Any, *, v: Any = None) -> Any:
        """Predicted elastic strain and (with ``v``) its tangents."""
        k = _mask(lt(norm(e_old), self._get_param("threshold")), e_old)
        k = k * self._get_param("scale")
        dt = t - t_old
        e = e_old + D * (k * dt)
        if v is None:
            return e
        actions = {
            "deformation_rate": lambda d: d * (k * dt),
            "time": lambda d: D * (k * d),
            "time~1": lambda d: -(D * (k * d)),
            "elastic_strain~1": lambda d: d,
        }
        return e, *self.propagate_tangents(v, "elastic_strain", actions, output=e)


@register_neml2_object("CrystalPlasticityDeformationGradientPredictor")
class CrystalPlasticityDeformationGradientPredictor(Model):
    """Plastic deformation gradient guess (I + s (F Fp~1^-1 - I))^-1 F."""

    hit = HitSchema(
        input("deformation_gradient", R2, "Deformation gradient F"),
        output("plastic_deformation_gradient", R2, "Predicted plastic deformation gradient"),
        derived_input("plastic_deformation_gradient", R2, suffix="~1"),
        parameter("scale", Scalar, "Fraction s of the trial elastic stretch", default="0.1"),
        parameter("threshold", Scalar, "Predict only where |sym(F Fp~1^-1) - I| > threshold",
                  default="1e-3"),
    )  # fmt: skip

    def forward(self, F: Any, Fp_old: Any, *, v: Any = None) -> Any:
        """Predicted plastic deformation gradient and (with ``v``) its tangents."""
        s = self._get_param("scale")
        P_inv = inv(Fp_old)
        X = F @ P_inv
        eye = R2.identity(dtype=F.data.dtype, device=F.data.device)
        m = _mask(gt(norm(sym(X) - SR2.identity(dtype=F.data.dtype, device=F.data.device)),
                     self._get_param("threshold")), F)  # fmt: skip
        Y_inv = inv(eye + (X - eye) * s)
        Fp_new = Y_inv @ F
        Fp = Fp_new * m + Fp_old * (1.0 - m)
        if v is None:
            return Fp
        actions = {
            # d(Y⁻¹F) = Y⁻¹ (dF − s dX Y⁻¹F), dX = dF P⁻¹ − X dP P⁻¹
            "deformation_gradient": lambda d: (Y_inv @ (d - (d @ P_inv) @ Fp_new * s)) * m,
            "plastic_deformation_gradient~1": lambda d: (
                (Y_inv @ (X @ d @ P_inv @ Fp_new)) * (s * m) + d * (1.0 - m)
            ),
        }
        return Fp, *self.propagate_tangents(v, "plastic_deformation_gradient", actions, output=Fp)
