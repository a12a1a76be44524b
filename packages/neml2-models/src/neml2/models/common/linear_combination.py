r"""``{Scalar,SR2}LinearCombination``: :math:`y = \sum_i w_i x_i + c`.

``from`` lists the inputs ``x_i``; ``weights`` gives one Scalar weight per input or one weight
for all (default ``1``); ``offset`` :math:`c` defaults to ``0``. Weights and offset may be
promoted to variables. Derivatives: :math:`\partial y/\partial x_i = w_i`,
:math:`\partial y/\partial w_i = x_i`, :math:`\partial y/\partial c = 1`;
:math:`\partial^2 y/\partial w_i\partial x_i = 1`.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import scaled_by
from neml2.models.model import Model
from neml2.schema import HitSchema, output, parameter, parameters, var_inputs
from neml2.tensors import SR2, Scalar

__all__ = ["LinearCombination", "make_linear_combination"]


class LinearCombination(Model):
    """Generic weighted sum; concrete types come from :func:`make_linear_combination`."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    from_var: list[str]
    weight: list[str]

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

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Weighted sum and (with ``v``) its tangents."""
        n = len(self.from_var)
        xs, promoted = args[:n], args[n:]
        ws = [self._get_param(w, promoted) for w in self._weight_of]
        offset = self._get_param("offset", promoted)
        if v is None:
            fast = _plain_sum(type(xs[0]), ws, xs, offset)
            if fast is not None:
                return fast
        y = ws[0] * xs[0]
        for w, x in zip(ws[1:], xs[1:], strict=True):
            y = y + w * x
        y = y + offset
        if v is None:
            return y
        actions: dict[str, Any] = {}
        actions_2: dict[tuple[str, str], Any] = {}
        for name, w, x, wname in zip(self.from_var, ws, xs, self._weight_of, strict=True):
            actions[name] = scaled_by(w)
            src = self.promoted_input(wname)
            if src is not None:
                prev = actions.get(src)
                if prev is None:
                    actions[src] = lambda d, x=x: d * x
                else:
                    actions[src] = lambda d, x=x, p=prev: p(d) + d * x
                actions_2[(src, name)] = lambda a, b: a * b
                actions_2[(name, src)] = lambda a, b: a * b
        src = self.promoted_input("offset")
        if src is not None:
            ones = type(y)(torch.ones(type(y).BASE_SHAPE, dtype=y.data.dtype, device=y.data.device))
            actions[src] = lambda d: d * ones
        return y, *self.propagate_tangents(
            v, "to", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )


def _plain_sum(cls: Any, ws: list[Any], xs: tuple[Any, ...], offset: Any) -> Any | None:
    """Fast path for primal operands without sub-batch/K axes and with one dtype: the wrapper
    rules then reduce to torch broadcasting with Scalars right-padded over the base."""
    dt = xs[0].data.dtype
    for a in (*ws, *xs, offset):
        if a.sub_batch_ndim or a.k_ndim or a.data.dtype != dt:
            return None
    nb = cls.BASE_NDIM

    def pad(s: Any) -> torch.Tensor:
        d: torch.Tensor = s.data
        return d if nb == 0 or d.dim() == 0 else d.reshape((*d.shape, *([1] * nb)))

    acc = pad(ws[0]) * xs[0].data
    for w, x in zip(ws[1:], xs[1:], strict=True):
        acc = torch.addcmul(acc, pad(w), x.data)
    out: Any = cls._wrap(acc + pad(offset), 0)
    return out


def make_linear_combination(tensor_type: Any) -> type[LinearCombination]:
    """Concrete ``<T>LinearCombination`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}LinearCombination"
    hit = HitSchema(
        var_inputs("from", tensor_type, "Variables to combine", attr="from_var"),
        output("to", tensor_type, "The weighted sum"),
        parameters(
            "weights",
            Scalar,
            "Weights (one per variable, or one for all)",
            default="1",
            attr="weight",
            allow_promotion=True,
        ),
        parameter("offset", Scalar, "Constant offset", default="0", allow_promotion=True),
    )
    doc = f"Weighted sum of {tensor_type.__name__} variables plus an offset."
    cls = type(name, (LinearCombination,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


ScalarLinearCombination = make_linear_combination(Scalar)
SR2LinearCombination = make_linear_combination(SR2)
