r"""``RateCondensation``: linearize a driving force in a rate about zero rate.

For a path model :math:`f(\dot\gamma, x)` with input ``rate`` :math:`\dot\gamma` and output
``driving_force``:

.. math::  b = f(0, x), \qquad A = -\left.\frac{\partial f}{\partial\dot\gamma}\right|_{\dot\gamma=0},

so that :math:`f \approx b - A\dot\gamma` (outputs ``trial_driving_force`` :math:`b` and
``coupling`` :math:`A`, the inputs of ``CoordinateDescentPredictor``). Inputs: every input of
the path model except ``rate``. :math:`A` comes from one forward tangent through the path model;
derivatives of both outputs use autograd (``request_AD``).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, dependency, option, output
from neml2.tensors import Scalar

__all__ = ["RateCondensation"]

_LEAF = "__rate"


def _check_scalar(model: Any, name: str, spec: dict[str, Any], key: str, what: str) -> None:
    if name not in spec:
        raise ValueError(
            f"option '{key}': '{name}' is not an {what} of model '{model._hit_name}' "
            f"({what}s: {list(spec)})"
        )
    if spec[name] is not Scalar:
        raise ValueError(f"option '{key}': '{name}' must be a Scalar, got {spec[name].__name__}")


@register_neml2_object("RateCondensation")
class RateCondensation(Model):
    """Condense a rate-dependent driving force f(rate) into b = f(0) and A = -df/drate(0)."""

    hit = HitSchema(
        output("coupling", Scalar, "Coupling A = -d(driving force)/d(rate) at zero rate"),
        output("trial_driving_force", Scalar, "Trial driving force b = f(0)"),
        dependency("model", "get_model", "Path model computing the driving force from the rate"),
        option("rate", str, "Rate input variable of the path model"),
        option("driving_force", str, "Driving-force output variable of the path model"),
    )

    coupling: str
    trial_driving_force: str
    rate: str
    driving_force: str
    model: Any

    def __post_init__(self) -> None:
        path = self.model
        if not isinstance(path, Model):
            raise TypeError(f"option 'model': expected a model, got {type(path).__name__}")
        _check_scalar(path, self.rate, path.input_spec, "rate", "input")
        _check_scalar(path, self.driving_force, path.output_spec, "driving_force", "output")
        self.input_spec = {n: t for n, t in path.input_spec.items() if n != self.rate}
        self._path_inputs = tuple(path.input_spec)
        self.request_AD()

    def forward(self, *args: Any) -> Any:
        """``(coupling, trial_driving_force)``."""
        vals = dict(zip(self.input_spec, args, strict=True))
        ref = args[0].data if args else torch.zeros(())
        zero = Scalar._wrap(torch.zeros((), dtype=ref.dtype, device=ref.device))
        vals[self.rate] = zero
        seed = Scalar._wrap(torch.ones((1,), dtype=ref.dtype, device=ref.device), 0, (), (), 1,
                            ("full",), (None,))  # fmt: skip
        res = self.model(*[vals[n] for n in self._path_inputs], v={self.rate: {_LEAF: seed}})
        outs = dict(zip(self.model.output_spec, res[:-1], strict=True))
        b = outs[self.driving_force]
        t = res[-1].get(self.driving_force, {}).get(_LEAF)
        if t is None:
            A = Scalar._wrap(torch.zeros_like(b.data))
        else:
            A = Scalar._wrap(-t.data.squeeze(0))
        return A, b
