r"""``{Scalar,SR2}TwoStageThermalAnnealing``:
:math:`y = [T < T_1]\,\dot b - [T \ge T_2]\,b/\tau`.

Below :math:`T_1` the base rate :math:`\dot b` passes through; above :math:`T_2` the base
variable :math:`b` anneals at rate :math:`b/\tau`; in between the rate is zero. Piecewise constant
in :math:`T`, so :math:`\partial y/\partial T = 0`.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.tensors import SR2, Scalar, ge, lt

__all__ = [
    "SR2TwoStageThermalAnnealing",
    "ScalarTwoStageThermalAnnealing",
    "TwoStageThermalAnnealing",
]


class TwoStageThermalAnnealing(Model):
    """Generic two-stage annealing; concrete types come from :func:`make_two_stage_annealing`."""

    SUPPORTS_SECOND_ORDER = True

    def __post_init__(self) -> None:
        t1, t2 = self._get_param("T1").data, self._get_param("T2").data
        if bool((t1 > t2).any()):
            raise ValueError(
                f"option 'T2': must not be below T1 (T1={t1.tolist()}, T2={t2.tolist()})"
            )
        if not bool((self._get_param("tau").data > 0).all()):
            raise ValueError("option 'tau': the annealing time scale must be positive")

    def forward(self, rate: Any, base: Any, t: Any, v: Any = None, v2: Any = None,
                vh: Any = None) -> Any:  # fmt: skip
        """Modified rate and (with ``v``) its tangents."""
        t1 = self._get_param("T1")
        t2 = self._get_param("T2")
        tau = self._get_param("tau")
        dt = rate.data.dtype
        lo, hi = lt(t, t1), ge(t, t2)
        low = lo._like(lo.data.to(dt))
        high = hi._like(hi.data.to(dt))
        y = low * rate - (high / tau) * base
        if v is None:
            return y
        actions = {"base_rate": lambda d: low * d, "base": lambda d: -(high / tau) * d}
        return y, *self.propagate_tangents(v, "modified_rate", actions, output=y, v2=v2, vh=vh)


def make_two_stage_annealing(tensor_type: Any) -> type[TwoStageThermalAnnealing]:
    """Concrete ``<T>TwoStageThermalAnnealing`` for ``tensor_type``."""
    name = f"{tensor_type.__name__}TwoStageThermalAnnealing"
    hit = HitSchema(
        input("base_rate", tensor_type, "Rate of the base variable below T1"),
        input("base", tensor_type, "Base variable annealed above T2"),
        input("temperature", Scalar, "Temperature"),
        output("modified_rate", tensor_type, "Modified rate"),
        parameter("T1", Scalar, "Temperature below which the base rate applies"),
        parameter("T2", Scalar, "Temperature above which the base variable anneals"),
        parameter("tau", Scalar, "Annealing time scale"),
    )
    doc = f"Two-stage thermal annealing of a {tensor_type.__name__} variable."
    cls = type(
        name, (TwoStageThermalAnnealing,), {"hit": hit, "__doc__": doc, "__module__": __name__}
    )
    return register_neml2_object(name)(cls)


ScalarTwoStageThermalAnnealing = make_two_stage_annealing(Scalar)
SR2TwoStageThermalAnnealing = make_two_stage_annealing(SR2)
