r"""The canonical raw-tensor boundary of the eager C++ route (``docs/design/runtime.md``,
"Canonical boundary").

A boundary variable :math:`v` with base shape :math:`b_v` and declared sub-batch shape :math:`s_v`
crosses as one tensor of shape ``(*B_v, *s_v, *b_v)``. The rules are libneml2's, the ones the
compiled routes run: :func:`neml2.aoti.canonicalize_inputs` checks the names (unknown and missing
ones), the trailing ``(*s_v, *b_v)`` axes, dtype and device (never cast or moved), and broadcasts
the batches to one common ``B`` (numpy rules; a batch-less tensor has ``B_v = ()``, so batch-less
inputs give batch-less results, as on every route); :func:`neml2.aoti.broadcast_batch_shapes` is
the same broadcasting for the results, which leave expanded to ``(*B, *s_v, *b_v)``. Every
violation is a :class:`neml2.aoti.FatalError` naming the variable.

What stays here has no C++ counterpart: wrapping the checked tensors into the model's typed
``input_spec`` classes, and refusing a typed output whose sub-batch shape is not the declared one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from neml2.aoti import broadcast_batch_shapes, canonicalize_inputs
from neml2.tensors import TensorWrapper

__all__ = ["broadcast_batch", "canonical_inputs", "canonical_outputs"]


def broadcast_batch(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The common batch shape (libneml2's rule; :class:`neml2.aoti.FatalError`, a
    ``RuntimeError``, naming the shapes when there is none)."""
    return tuple(broadcast_batch_shapes([list(s) for s in shapes]))


def canonical_inputs(
    what: str,
    values: Mapping[str, Any],
    infos: Sequence[Any],
    types: Mapping[str, Any],
    device: torch.device,
    dtype: Any,
    *,
    required: bool = True,
) -> tuple[dict[str, TensorWrapper], tuple[int, ...]]:
    """Check ``values`` against the boundary ``infos`` (:class:`VarInfo`) and wrap them.

    The checks and the broadcast are :func:`neml2.aoti.canonicalize_inputs` (``what`` names the
    tensors in its messages: ``"input"``, ``"tangent"``). ``types`` maps each name to its wrapper
    class (the model's ``input_spec``). Returns the typed values, expanded to the common batch
    (``sub_batch_ndim`` set from the declaration), and the common batch shape. ``required=False``
    (tangents) allows missing names. Unknown names are errors.
    """
    raw, batch = canonicalize_inputs(
        values,
        [i.name for i in infos],
        [list(i.base_shape) for i in infos],
        device,
        dtype,
        sub_batch_shapes=[list(i.sub_batch_shape) for i in infos],
        required=required,
        what=what,
    )
    out: dict[str, TensorWrapper] = {
        i.name: types[i.name](raw[i.name], sub_batch_ndim=len(i.sub_batch_shape))
        for i in infos
        if i.name in raw
    }
    return out, tuple(batch)


def canonical_outputs(
    what: str, values: Mapping[str, Any], infos: Sequence[Any], batch: tuple[int, ...]
) -> dict[str, torch.Tensor]:
    """Raw ``(*B, *s, *b)`` tensors of the typed ``values`` (every declared output), ``B`` the
    common batch of ``batch`` and the output's own (:func:`broadcast_batch`).

    An output whose sub-batch shape differs from its declaration cannot cross the raw boundary
    (the caller could not tell batch from sub-batch axes): a ``ValueError`` says so.
    """
    out: dict[str, torch.Tensor] = {}
    for info in infos:
        y = values[info.name]
        sub, base = tuple(info.sub_batch_shape), tuple(info.base_shape)
        got = tuple(y.sub_batch_shape) if isinstance(y, TensorWrapper) else ()
        if got != sub:
            raise ValueError(
                f"{what} '{info.name}' has sub-batch shape {list(got)} but the boundary "
                f"declares {list(sub)}: the raw (*batch, *sub_batch, *base) tensor cannot carry "
                f"an undeclared sub-batch layout; declare it in the input file as [Settings] "
                f"[example_batch_shape] {info.name} = '(N; {', '.join(map(str, got))})' []"
            )
        data = y.data if isinstance(y, TensorWrapper) else y
        if data.requires_grad:
            data = data.detach()
        lead = tuple(data.shape[: data.dim() - len(sub) - len(base)])
        full = lead if lead == batch else broadcast_batch(batch, lead)
        out[info.name] = data if lead == full else data.expand((*full, *sub, *base))
    return out
