r"""``Normality``: :math:`N_i = \partial f/\partial x_i` of an inner model.

``model`` computes the scalar ``function`` :math:`f`; for each pair (``from[i]``, ``to[i]``) the
output ``to[i]`` (typed like ``from[i]``) is the gradient :math:`\partial f/\partial x_i`. The
inputs are the inner model's inputs. Values come from one inner call with identity seeds on the
``from`` variables; tangents (:math:`\dot N_i = \sum_j \partial^2 f/\partial x_i\partial x_j\,
\dot x_j`) from the inner model's second-order pushforward (``v2`` with the incoming tangents as
``vh``), so every leaf of the inner model must support second order.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models._deferred import DeferredTangent, ProductTerm, materialize
from neml2.models._derivatives import split_result
from neml2.models._typed import identity_seed
from neml2.models.model import Model, register_submodule
from neml2.schema import HitSchema, dependency, option
from neml2.tensors import TensorWrapper

__all__ = ["Normality"]


@register_neml2_object("Normality")
class Normality(Model):
    """Gradient of a scalar function computed by another model."""

    ACCEPTS_DEFERRED_TANGENTS = True  # gradients evaluated; second-order blocks may stay deferred

    hit = HitSchema(
        dependency("model", "get_model", "Model computing the function", attr="_inner"),
        option("function", str, "Output variable of the model to differentiate"),
        option("from", list, "Input variables to differentiate with respect to", attr="from_var"),
        option("to", list, "Output variables receiving the gradients", attr="to_var"),
    )

    function: str
    from_var: list[str]
    to_var: list[str]

    def __post_init__(self) -> None:
        inner = self._inner
        if not isinstance(inner, Model):
            raise TypeError(f"option 'model': expected a model, got {type(inner).__name__}")
        del self._inner
        self._inner_attr = register_submodule(self, inner, "_model")
        self.from_var = [str(x) for x in self.from_var]
        self.to_var = [str(x) for x in self.to_var]
        if self.function not in inner.output_spec:
            raise ValueError(
                f"option 'function': '{self.function}' is not an output of the model "
                f"(outputs: {list(inner.output_spec)})"
            )
        if len(self.from_var) != len(self.to_var):
            raise ValueError(
                f"option 'to': {len(self.to_var)} name(s) {self.to_var} for "
                f"{len(self.from_var)} 'from' variable(s) {self.from_var}"
            )
        bad = [x for x in self.from_var if x not in inner.input_spec]
        if bad:
            raise ValueError(
                f"option 'from': {bad} not input(s) of the model (inputs: {list(inner.input_spec)})"
            )
        if not inner.SUPPORTS_SECOND_ORDER:
            raise TypeError(
                f"option 'model': the model ({type(inner).__name__}) does not support second "
                f"order derivatives (SUPPORTS_SECOND_ORDER is False for it or one of its leaves)"
            )
        self.input_spec = dict(inner.input_spec)
        self.output_spec = {
            t: inner.input_spec[f] for f, t in zip(self.from_var, self.to_var, strict=True)
        }
        self.output_priorities = {t: None for t in self.to_var}
        self._var_renames = {}

    @property
    def inner(self) -> Any:
        """The model computing the function."""
        return getattr(self, self._inner_attr)

    def forward(self, *args: Any, v: Any = None) -> Any:
        """Gradients ``to[i]`` and (with ``v``) their tangents."""
        inner = self.inner
        names = list(self.input_spec)
        xs = dict(zip(names, args, strict=True))
        seeds = {f: {f: identity_seed(xs[f])} for f in self.from_var}
        if v is None:
            outs, (v_out,) = split_result(inner, inner(*args, v=seeds), 1)
            d2: dict[str, Any] = {}
        else:
            res = inner(*args, v=seeds, v2={}, vh=v)
            outs, (v_out, v2_out, _) = split_result(inner, res, 3)
            d2 = v2_out.get(self.function, {})
        fval = outs[self.function]
        grads = materialize(v_out.get(self.function, {}))
        values = [_gradient(grads.get(f), xs[f], fval) for f in self.from_var]
        if v is None:
            return values[0] if len(values) == 1 else tuple(values)
        v_res: dict[str, dict[str, Any]] = {}
        for f, t in zip(self.from_var, self.to_var, strict=True):
            blocks = d2.get(f, {})
            if blocks:
                v_res[t] = {leaf: _unseed(blk, type(xs[f])) for leaf, blk in blocks.items()}
        return (*values, v_res)


def _gradient(t: Any, x: TensorWrapper, f: TensorWrapper) -> Any:
    """Value of ``df/dx`` from the seeded tangent ``t`` (``None`` → zeros)."""
    cls = type(x)
    batch = f.data.shape[: f.data.dim() - f.BASE_NDIM]
    if t is None:
        data = torch.zeros((*batch, *cls.BASE_SHAPE), dtype=f.data.dtype, device=f.data.device)
        return cls._wrap(data, f.sub_batch_ndim, f.sub_batch_state, f.sub_batch_meta)
    d = t.data.movedim(0, -1)
    d = d.reshape((*d.shape[:-1], *cls.BASE_SHAPE))
    tb = d.shape[: d.dim() - cls.BASE_NDIM]
    full = _broadcast(tuple(tb), tuple(batch))
    d = d.expand((*full, *cls.BASE_SHAPE))
    return cls._wrap(d, t.sub_batch_ndim, t.sub_batch_state, t.sub_batch_meta)


def _unseed(t: Any, cls: Any) -> Any:
    """Second-order block ``(N_from, *K, *B, ())`` → tangent of ``cls`` ``(*K, *B, *base)``
    (a block deferred as a constant multiple stays one: the map is a view)."""
    if isinstance(t, DeferredTangent):
        cm = t.constant_multiple
        if cm is None:
            return _unseed(t.value(), cls)
        return t.with_parts([ProductTerm(cm[0], _unseed(cm[1], cls))])
    d = t.data.movedim(0, -1)
    d = d.reshape((*d.shape[:-1], *cls.BASE_SHAPE))
    return cls._wrap(
        d, t.sub_batch_ndim, t.sub_batch_state, t.sub_batch_meta,
        t.k_ndim - 1, t.k_state[1:], t.k_pairing[1:],
    )  # fmt: skip


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Right-aligned broadcast of two shapes (sizes must match or be 1)."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    return tuple(x if y == 1 else y for x, y in zip(a, b, strict=True))
