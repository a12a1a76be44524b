r"""The request key that ignores the values of promoted (``-p``) parameters.

A promoted parameter is a graph input: its value reaches the artifact only through
``metadata.json`` (``parameters[k].values``). Two requests that differ only in such values
therefore share every graph and every other piece of metadata, and a compile cache hit on
:func:`value_free_key` needs no export and no lowering: the cached graphs are copied and the
parameter values rewritten.

The key reads the input text with the option that sets each promoted parameter replaced by a
placeholder (``Models/<block>/<option>:=...``, the block and option its model recorded when it
declared the parameter), and adds what the text no longer pins down:

* every promoted parameter's name, type and shape (a new value of another shape changes the
  graphs' input shapes);
* the dtype, shape and bytes of every other parameter and buffer of the model (the constants
  baked into the graphs), and every attribute of its modules that holds plain data (numbers,
  strings, and lists, tuples and dicts of them), so a masked option that also fed something
  else, a tensor or a value a model copied at construction, still misses.

Without a recorded option for every promoted parameter there is no such key; the request then
always compiles.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from neml2.aoti.compile._errors import CompileError
from neml2.models.model import Model

__all__ = ["PLACEHOLDER", "baked_fingerprint", "promoted_options", "value_free_key"]

#: The value a promoted parameter's option is replaced by in the keyed text.
PLACEHOLDER = "__neml2_promoted_parameter__"


def _option_of(model: Any, internal: str) -> tuple[str, Any, str | None]:
    """``(module path, module, option)`` of the internal (qualified) parameter name: the option of
    its model's HIT block that set it (None for a plain module or one declared by code)."""
    path, _, attr = internal.rpartition(".")
    mod = model.get_submodule(path) if path else model
    return path, mod, mod.parameter_option(attr) if isinstance(mod, Model) else None


def promoted_options(model: Any, internals: Sequence[str]) -> list[str] | None:
    """``Models/<block>/<option>`` that set the internal (qualified) parameter names of
    ``model`` (:meth:`~neml2.Model.parameter_option`), or ``None`` when one of them was set by no
    option of a ``[Models]`` block."""
    out = set()
    for internal in internals:
        _, mod, option = _option_of(model, internal)
        block = mod.hit_name if isinstance(mod, Model) else None
        if not block or not option:
            return None
        out.add(f"Models/{block}/{option}")
    return sorted(out)


def _plain(value: Any) -> str | None:
    """``repr`` of plain data (None, bool, int, float, str and lists, tuples and dicts of them),
    else ``None``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return None if None in items else f"{type(value).__name__}[{','.join(items)}]"  # type: ignore[arg-type]
    if isinstance(value, dict):
        pairs = sorted((repr(k), _plain(v)) for k, v in value.items())
        return None if any(v is None for _, v in pairs) else f"dict[{pairs}]"
    return None


def baked_fingerprint(model: Any, promoted: Sequence[str]) -> str:
    """SHA-256 of the dtype, shape and bytes of every parameter and buffer of ``model`` except
    the ``promoted`` (internal) names, and of the plain-data attributes of its modules except
    those holding a promoted parameter's own (masked) option as given."""
    masked = set()
    for internal in promoted:
        path, _, option = _option_of(model, internal)
        masked.add((path, option))
    h = hashlib.sha256()
    for path, mod in model.named_modules():
        for attr, value in sorted(vars(mod).items()):
            text = _plain(value)
            if text is not None and (path, attr) not in masked:
                h.update(f"{path}.{attr}={text}|".encode())
    skip = set(promoted)
    tensors = [*model.named_parameters(), *model.named_buffers()]
    for name, t in sorted(tensors, key=lambda item: item[0]):
        if name in skip:
            continue
        data = t.detach().to("cpu").contiguous()
        h.update(f"{name}|{data.dtype}|{tuple(data.shape)}|".encode())
        h.update(data.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def value_free_key(
    prep: Any,
    input_text: Callable[[Sequence[str]], str],
    options: Mapping[str, Any],
    cache_key: Callable[[str, Mapping[str, Any]], str],
) -> str | None:
    """The request key of ``prep`` (a :class:`~neml2.aoti.compile._prepare.Prepared` with
    promoted parameters) without their values, or ``None`` (nothing promoted, or a promoted
    parameter not set by an option). ``input_text(extra overrides)`` writes the request's
    input text with those overrides applied last; ``cache_key(text, options)`` is the
    request-level key."""
    if not prep.params:
        return None
    internals = [p.internal for p in prep.params]
    fields = promoted_options(prep.model, internals)
    if fields is None:
        return None
    try:
        text = input_text([f"{field}:={PLACEHOLDER}" for field in fields])
    except CompileError:  # an option outside the file's [Models] blocks
        return None
    promoted = [[p.name, p.var_type, list(p.shape), str(p.value.dtype)] for p in prep.params]
    extra = {"promoted": promoted, "baked": baked_fingerprint(prep.model, internals)}
    return cache_key(text, {**options, "value_free": extra})
