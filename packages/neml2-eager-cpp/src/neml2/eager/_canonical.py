r"""The canonical raw-tensor boundary of the eager C++ route (``docs/design/runtime.md``,
"Canonical boundary").

A boundary variable :math:`v` with base shape :math:`b_v` and declared sub-batch shape :math:`s_v`
crosses as one tensor of shape ``(*B_v, *s_v, *b_v)``. The trailing ``(*s_v, *b_v)`` axes must
match exactly, dtype and device must be the model's (never cast or moved), and the batches
broadcast to one common ``B`` (numpy rules; a batch-less tensor has ``B_v = ()``, so batch-less
inputs give batch-less results, as on every route). Results leave expanded to
``(*B, *s_v, *b_v)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from neml2.tensors import TensorWrapper

__all__ = ["broadcast_batch", "canonical_inputs", "canonical_outputs", "format_shape"]


def format_shape(shape: Sequence[int]) -> str:
    """``[2, 3]`` (the notation of the C++ runtime's messages)."""
    return "[" + ", ".join(str(int(n)) for n in shape) + "]"


def broadcast_batch(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The common batch shape (numpy broadcasting rules; ``RuntimeError`` if there is none).

    Pure Python: ``torch.broadcast_shapes`` costs more than a whole batch-1 elasticity call.
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, ndim - len(shape)):
            if out[i] == 1:
                out[i] = n
            elif n not in (1, out[i]):
                raise RuntimeError(f"batch shapes {[list(s) for s in shapes]} do not broadcast")
    return tuple(out)


def _check_tensor(
    what: str, name: str, t: Any, trailing: tuple[int, ...], device: torch.device, dtype: Any
) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} '{name}': expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise TypeError(
            f"{what} '{name}': dtype {t.dtype} does not match the model dtype {dtype} "
            f"(inputs are never cast; load the model with the dtype you pass)"
        )
    if t.device != device:
        raise ValueError(
            f"{what} '{name}': device {t.device} does not match the model device {device} "
            f"(inputs are never moved)"
        )
    n = len(trailing)
    if t.dim() < n or tuple(t.shape[t.dim() - n :]) != trailing:
        raise ValueError(
            f"{what} '{name}': non-canonical shape {format_shape(t.shape)}: expected "
            f"(*batch, {', '.join(map(str, trailing))}) -- trailing axes "
            f"{format_shape(trailing)} (sub-batch + base shape of the variable)"
        )
    return t


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

    ``types`` maps each name to its wrapper class (the model's ``input_spec``). Returns the typed
    values (``sub_batch_ndim`` set from the declaration) and the common batch
    shape. ``required=False`` (tangents) allows missing names. Unknown names are errors.
    """
    names = [i.name for i in infos]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ValueError(f"unknown {what} {unknown}; the model's inputs are {names}")
    out: dict[str, TensorWrapper] = {}
    batches: list[tuple[int, ...]] = []
    for info in infos:
        if info.name not in values:
            if required:
                raise ValueError(f"missing {what} '{info.name}'; the model's inputs are {names}")
            continue
        sub, base = tuple(info.sub_batch_shape), tuple(info.base_shape)
        t = _check_tensor(what, info.name, values[info.name], sub + base, device, dtype)
        batches.append(tuple(t.shape[: t.dim() - len(sub) - len(base)]))
        out[info.name] = types[info.name](t, sub_batch_ndim=len(sub))
    try:
        batch = broadcast_batch(*batches)
    except RuntimeError:
        shown = ", ".join(f"'{n}' {format_shape(b)}" for n, b in zip(out, batches, strict=True))
        raise ValueError(f"{what} batch shapes do not broadcast: {shown}") from None
    return out, batch


def canonical_outputs(
    what: str, values: Mapping[str, Any], infos: Sequence[Any], batch: tuple[int, ...]
) -> dict[str, torch.Tensor]:
    """Raw ``(*B, *s, *b)`` tensors of the typed ``values`` (every declared output).

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
                f"{what} '{info.name}' has sub-batch shape {format_shape(got)} but the boundary "
                f"declares {format_shape(sub)}: the raw (*batch, *sub_batch, *base) tensor "
                f"cannot carry an undeclared sub-batch layout; declare it in the input file as "
                f"[Settings] [example_batch_shape] {info.name} = '(N; "
                f"{', '.join(map(str, got))})' []"
            )
        data = y.data if isinstance(y, TensorWrapper) else y
        if data.requires_grad:
            data = data.detach()
        lead = tuple(data.shape[: data.dim() - len(sub) - len(base)])
        full = broadcast_batch(batch, lead)
        out[info.name] = data if lead == full else data.expand((*full, *sub, *base))
    return out
