r"""``CoordinateDescentPredictor``: rate guess from a condensed driving force.

With the rate law :math:`\varphi(w, x)` (``rate_law``; :math:`w` its input
``driving_force_input``), ``coupling`` :math:`A` and ``trial_driving_force`` :math:`b`
(e.g. from ``RateCondensation``), solve per batch element

.. math::  g(w) = w + A\,\varphi(w) - b = 0

and output ``rate`` :math:`= \varphi(w)`. The search interval runs from :math:`w_0 = 0` (no
driving force) to :math:`w_1 = b` (no rate); each of the ``bisections`` steps evaluates
:math:`g` at :math:`m = (w_0 + w_1)/2` and moves the :math:`b` end there if
:math:`\operatorname{sign}(b)\,g(m) \ge 0`, else the zero end. From the midpoint of the final
interval ``polish`` unguarded Newton steps :math:`w \leftarrow w - g/(1 + A\varphi')` follow.
For a nondecreasing :math:`\varphi` with :math:`\varphi(0) = 0` and :math:`A \ge 0` the root
lies in :math:`[\min(0, b), \max(0, b)]`. Each batch element is one coordinate, so a single
Gauss–Seidel sweep is exact; ``sweeps`` bounds the sweeps for coupled coordinates. Inputs:
``coupling``, ``trial_driving_force`` and the rate law's other inputs. Derivatives by autograd
through the iterations (``request_AD``).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, dependency, input, option, output
from neml2.tensors import Scalar

__all__ = ["CoordinateDescentPredictor"]

_LEAF = "__w"


@register_neml2_object("CoordinateDescentPredictor")
class CoordinateDescentPredictor(Model):
    """Guess a rate by solving w + A rate_law(w) = b per coordinate (bisection + Newton)."""

    hit = HitSchema(
        input("coupling", Scalar, "Coupling A between the driving force and the rate"),
        input("trial_driving_force", Scalar, "Trial driving force b at zero rate"),
        output("rate", Scalar, "Predicted rate"),
        dependency("rate_law", "get_model", "Model computing the rate from the driving force"),
        option("driving_force_input", str, "Driving-force input variable of the rate law"),
        option("sweeps", int, "Maximum number of Gauss-Seidel sweeps", default=16),
        option("bisections", int, "Bisection steps per coordinate solve", default=16),
        option("polish", int, "Newton polishing steps per coordinate solve", default=3),
    )

    coupling: str
    trial_driving_force: str
    rate: str
    rate_law: Any
    driving_force_input: str
    sweeps: int
    bisections: int
    polish: int

    def __post_init__(self) -> None:
        law = self.rate_law
        if not isinstance(law, Model):
            raise TypeError(f"option 'rate_law': expected a model, got {type(law).__name__}")
        w = self.driving_force_input
        if law.input_spec.get(w) is not Scalar:
            raise ValueError(
                f"option 'driving_force_input': '{w}' is not a Scalar input of model "
                f"'{law._hit_name}' (inputs: {list(law.input_spec)})"
            )
        outs = list(law.output_spec)
        if len(outs) == 1:
            self._law_output = outs[0]
        elif self.rate in outs:
            self._law_output = self.rate
        else:
            raise ValueError(
                f"option 'rate_law': model '{law._hit_name}' has outputs {outs}; it needs exactly "
                f"one output or one named '{self.rate}'"
            )
        if law.output_spec[self._law_output] is not Scalar:
            raise ValueError(f"option 'rate_law': output '{self._law_output}' must be a Scalar")
        for key in ("sweeps", "bisections", "polish"):
            if getattr(self, key) < 0:
                raise ValueError(f"option '{key}': must be >= 0, got {getattr(self, key)}")
        if self.sweeps < 1:
            raise ValueError("option 'sweeps': at least one sweep is required")
        for n, t in law.input_spec.items():
            if n != w:
                self.input_spec.setdefault(n, t)
        self._law_inputs = tuple(law.input_spec)
        self.request_AD()

    def _phi(self, w: Any, others: dict[str, Any], slope: bool) -> tuple[Any, Any]:
        vals = dict(others)
        vals[self.driving_force_input] = w
        args = [vals[n] for n in self._law_inputs]
        if not slope:
            res = self.rate_law(*args)
            res = res if isinstance(res, tuple) else (res,)
            return dict(zip(self.rate_law.output_spec, res, strict=True))[self._law_output], None
        seed = Scalar._wrap(torch.ones((1,), dtype=w.data.dtype, device=w.data.device), 0, (),
                            (), 1, ("full",), (None,))  # fmt: skip
        res = self.rate_law(*args, v={self.driving_force_input: {_LEAF: seed}})
        phi = dict(zip(self.rate_law.output_spec, res[:-1], strict=True))[self._law_output]
        t = res[-1].get(self._law_output, {}).get(_LEAF)
        dphi = Scalar._wrap(torch.zeros_like(phi.data) if t is None else t.data.squeeze(0))
        return phi, dphi

    def forward(self, A: Any, b: Any, *rest: Any) -> Any:
        """Predicted rate ``φ(w*)``."""
        for name, x in (
            ("coupling", A),
            ("trial_driving_force", b),
            *zip(self._others(), rest, strict=True),
        ):
            if x.sub_batch_ndim:
                raise NotImplementedError(
                    f"CoordinateDescentPredictor '{self._hit_name}': input '{name}' has sub-batch "
                    f"axes; only per-element (uncoupled) coordinates are supported"
                )
        others = dict(zip(self._others(), rest, strict=True))
        # interval [0, b]: w1 is the b end, moved to the midpoint where sign(b) g(mid) >= 0
        sign = torch.where(b.data >= 0, 1.0, -1.0).to(b.data.dtype)
        w0 = Scalar._wrap(torch.zeros_like(b.data))
        w1 = b
        for _ in range(self.bisections):
            mid = (w0 + w1) * 0.5
            phi, _ = self._phi(mid, others, False)
            far = (mid + A * phi - b).data * sign >= 0
            w1 = Scalar._wrap(torch.where(far, mid.data, w1.data))
            w0 = Scalar._wrap(torch.where(far, w0.data, mid.data))
        w = (w0 + w1) * 0.5
        for _ in range(self.polish):
            phi, dphi = self._phi(w, others, True)
            w = w - (w + A * phi - b) / (A * dphi + 1.0)
        rate, _ = self._phi(w, others, False)
        return rate

    def _others(self) -> tuple[str, ...]:
        skip = {self.coupling, self.trial_driving_force}
        return tuple(n for n in self.input_spec if n not in skip)
