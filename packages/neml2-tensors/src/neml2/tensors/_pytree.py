"""Pytree registration so ``torch.export`` / ``torch.compile`` / ``torch.func`` see through wrappers.

Flatten yields exactly one leaf (``data``, key path ``.data``); unflatten rebuilds the class
with all region metadata reset to defaults (exported graphs operate on raw tensors). Unflatten
skips validation because torch utilities also unflatten placeholder leaves (specs, cotangent
structures) that are not tensors of the base shape.
"""

from __future__ import annotations

from typing import Any

import torch.utils._pytree as pytree

_DATA_KEY = pytree.GetAttrKey("data")


def _flatten(obj: Any) -> tuple[list[Any], None]:
    return [obj.data], None


def _flatten_with_keys(obj: Any) -> tuple[list[tuple[pytree.KeyEntry, Any]], None]:
    return [(_DATA_KEY, obj.data)], None


def register(cls: type) -> None:
    """Register ``cls`` (a wrapper or the dynamic ``Tensor``) with the single leaf ``data``."""
    if cls in pytree.SUPPORTED_NODES:
        return
    wrap = cls._wrap  # type: ignore[attr-defined]

    def unflatten(leaves: Any, context: None) -> Any:
        (data,) = leaves
        return wrap(data)

    pytree.register_pytree_node(
        cls,
        _flatten,
        unflatten,
        serialized_type_name=f"neml2.types.{cls.__name__}",
        flatten_with_keys_fn=_flatten_with_keys,
    )
