r"""``Model.jvp`` on top of the forward chain rule (``Model.jacobian``: :mod:`._jacobian`).

JVP: one K=1 seed per input under a common leaf, so contributions sum over inputs; outputs
independent of every seeded input get zero tangents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from neml2.models._typed import broadcast, drop_k, with_k1

__all__ = ["jvp", "split_result"]

_JVP_LEAF = "__jvp__"


def split_result(model: Any, res: Any, n_extra: int) -> tuple[dict[str, Any], list[Any]]:
    """Split ``(*outputs, *extras)`` into ``{output: value}`` and the extras."""
    if not isinstance(res, tuple):
        res = (res,)
    n = len(res) - n_extra
    outs = dict(zip(model.output_spec, res[:n], strict=True))
    return outs, list(res[n:])


def jvp(
    model: Any, inputs: Mapping[str, Any], tangents: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Outputs and directional derivatives ``Σ_i ∂y/∂x_i · dx_i``."""
    args = model.wrap_inputs(inputs)
    v: dict[str, dict[str, Any]] = {}
    for name, x in zip(model.input_spec, args, strict=True):
        if name in tangents:
            t = tangents[name]
            if not isinstance(t, type(x)):
                t = type(x)(t, sub_batch_ndim=x.sub_batch_ndim)
            v[name] = {_JVP_LEAF: with_k1(t)}
    unknown = set(tangents) - set(model.input_spec)
    if unknown:
        raise KeyError(f"jvp: tangents given for non-input variable(s) {sorted(unknown)}")
    outs, (v_out,) = split_result(model, model(*args, v=v), 1)
    res = {}
    for name, y in outs.items():
        t = v_out.get(name, {}).get(_JVP_LEAF)
        if t is None:
            res[name] = type(y)(torch.zeros_like(y.data), sub_batch_ndim=y.sub_batch_ndim)
        else:
            d = drop_k(t)
            if d.data.shape != y.data.shape:  # the batch of y and of the tangents, broadcast
                shape = broadcast(d.data.shape, y.data.shape)
                d = type(y)._wrap(d.data.expand(shape), y.sub_batch_ndim)
            res[name] = d
    return outs, res
