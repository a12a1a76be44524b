r"""``ScalarPNorm``: :math:`y = \left(\sum_i w_i |x_i|^p + \epsilon\right)^{1/p}`.

``from`` lists the :math:`x_i`; ``exponent`` :math:`p`; ``weights`` one per variable or one for
all (default 1); :math:`\epsilon` machine epsilon. With :math:`S` the bracket:
:math:`\partial y/\partial x_i = S^{1/p - 1}\, w_i |x_i|^{p-1} \operatorname{sign}(x_i)`.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, output, parameter, parameters, var_inputs
from neml2.tensors import Scalar, abs, pow, sign

__all__ = ["ScalarPNorm"]


@register_neml2_object("ScalarPNorm")
class ScalarPNorm(Model):
    """Weighted p-norm of Scalar variables."""

    from_var: list[str]
    weight: list[str]
    hit = HitSchema(
        var_inputs("from", Scalar, "Scalar variables x_i", attr="from_var"),
        output("to", Scalar, "The p-norm y", attr="to_var"),
        parameter("exponent", Scalar, "Exponent p"),
        parameters("weights", Scalar, "Weights (one per variable, or one for all)", default="1",
                   attr="weight"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        n, nw = len(self.from_var), len(self.weight)
        if n == 0:
            raise ValueError("option 'from': at least one variable is required")
        if len(set(self.from_var)) != n:
            raise ValueError(f"option 'from': duplicate variable names in {self.from_var}")
        if nw not in (1, n):
            raise ValueError(
                f"option 'weights': expected 1 or {n} weights (one per 'from' variable), got {nw}"
            )
        self._weight_of = [self.weight[i if nw > 1 else 0] for i in range(n)]

    def forward(self, *xs: Any, v: Any = None) -> Any:
        """The p-norm and (with ``v``) its tangents."""
        p = self._get_param("exponent")
        ws = [self._get_param(w) for w in self._weight_of]
        ax = [abs(x) for x in xs]
        S = ws[0] * pow(ax[0], p)
        for w, a in zip(ws[1:], ax[1:], strict=True):
            S = S + w * pow(a, p)
        S = S + torch.finfo(S.dtype).eps
        y = pow(S, 1.0 / p)
        if v is None:
            return y
        scale = y / S  # S^{1/p - 1}
        actions = {}
        for name, x, a, w in zip(self.from_var, xs, ax, ws, strict=True):
            g = scale * w * pow(a, p - 1.0) * sign(x)
            actions[name] = lambda d, g=g: g * d
        return y, *self.propagate_tangents(v, "to", actions, output=y)
