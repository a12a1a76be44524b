"""Schema-driven construction: turn constructor values into variable names, options, parameters.

Pass 1 resolves every input/output name (HIT value → string ``default`` → option name;
``BLOCK_NAME`` → block name; derived names ``resolved(ref) + suffix`` unless renamed), sets
``self.<attr>``, options and dependencies, and builds the per-instance specs. Pass 2 declares
parameters and buffers (under their v3 storage names, :mod:`neml2._param_storage`), so
promoted inputs follow the structural ones.
"""

from __future__ import annotations

from typing import Any

from neml2._param_storage import storage_name
from neml2.schema import BLOCK_NAME, MISSING, SchemaField

__all__ = ["store_schema_values", "tokens"]

_VARS = ("input", "output", "derived_input", "derived_output", "var_inputs")


def tokens(value: Any) -> list[Any]:
    """A list option from a space-separated string, a sequence, or a scalar."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


_SCALARS: dict[Any, Any] = {int: int, float: float, bool: None}
_LISTS: dict[Any, Any] = {list[float]: float, list[int]: int, list[bool]: bool}


def _to_bool(text: str) -> bool:
    """Catalog defaults spell booleans ``True``/``False``; HIT text spells ``true``/``false``."""
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    raise ValueError(f"expected a boolean, got {text!r}")


def coerce_option(f: SchemaField, val: Any) -> Any:
    """A string option value (a catalog-style default or a Python argument) typed as ``f.type``.

    HIT values arrive already typed by the factory's strict readers; this covers defaults such as
    ``default="False"`` and direct construction ``M(flag="true")``.
    """
    if not isinstance(val, str):
        return val
    if f.reader is not None:
        return f.reader(val)
    t = f.type
    if t in (list, tuple) or t == list[str]:
        return val.split()
    if t in _SCALARS:
        return _to_bool(val) if t is bool else t(val)
    if t in _LISTS:
        item = _LISTS[t]
        return [_to_bool(s) if item is bool else item(s) for s in val.split()]
    return val


def _missing(f: SchemaField) -> ValueError:
    return ValueError(f"missing required option '{f.name}' ({f.doc})")


def _name(f: SchemaField, values: dict[str, Any], block: str | None) -> str | None:
    val = values.pop(f.name, MISSING)
    if val is MISSING or val == "":
        val = f.default if f.default is not MISSING else f.name
    if val == BLOCK_NAME:
        val = block if block is not None else f.name
    if val is not None and (not isinstance(val, str) or not val or len(val.split()) != 1):
        raise ValueError(f"option '{f.name}': expected one variable name, got {val!r}")
    return val


def _attr(model: Any, f: SchemaField) -> str:
    """Storage attribute of ``f``; a default that would shadow a class attribute gets a ``_``."""
    t = f.target
    if f.attr is None and hasattr(type(model), t):
        return f"_{t}"
    return t


def store_schema_values(
    model: Any, values: dict[str, Any], factory: Any, block: str | None
) -> None:
    """Apply ``values`` (option name → value) to ``model`` following ``type(model).hit``."""
    schema = type(model).hit
    fields = schema.fields
    resolved: dict[str, Any] = {}
    for f in fields:
        if f.kind in ("input", "output"):
            resolved[f.name] = _name(f, values, block)
    for f in fields:
        if f.kind in ("derived_input", "derived_output"):
            knob = f.knob
            val = values.pop(knob, None) if knob else None
            if not val:
                base = resolved.get(f.ref or "")
                if base is None and f.ref in values:
                    base = values[f.ref]
                if base is None:
                    raise ValueError(f"derived variable '{f.name}': '{f.ref}' is not resolved")
                val = f"{base}{f.suffix}"
            resolved[f.name] = val
    ins: dict[str, Any] = {}
    outs: dict[str, Any] = {}
    prios: dict[str, str | None] = {}
    renames: dict[str, str] = {}
    for f in fields:
        k = f.kind
        if k in ("input", "output", "derived_input", "derived_output"):
            name = resolved[f.name]
            setattr(model, _attr(model, f), name)
            if name is None:
                continue
            renames[f.name] = name
            if k in ("input", "derived_input"):
                ins[name] = f.type
            else:
                outs[name] = f.type
                prios[name] = f.priority
        elif k == "var_inputs":
            val = values.pop(f.name, MISSING)
            if val is MISSING:
                if f.default is MISSING:
                    raise _missing(f)
                val = f.default
            names = [str(t) for t in tokens(val)] if val is not None else []
            setattr(model, _attr(model, f), names)
            for n in names:
                ins[n] = f.type
        elif k in ("option", "dependency"):
            val = values.pop(f.name, MISSING)
            if val is MISSING:
                if f.default is MISSING:
                    raise _missing(f)
                val = f.default
            if k == "option":
                try:
                    val = coerce_option(f, val)
                except ValueError as e:
                    raise ValueError(f"option '{f.name}': {e}") from e
            if k == "dependency" and isinstance(val, str) and val and factory is not None:
                val = getattr(factory, f.getter or "get_model")(val)
            setattr(model, _attr(model, f), val)
    model.input_spec = ins
    model.output_spec = outs
    model.output_priorities = prios
    model._var_renames = renames
    for f in fields:
        k = f.kind
        if k not in ("parameter", "parameters", "buffer", "buffers"):
            continue
        spec = values.pop(f.name, MISSING)
        if spec is MISSING:
            if f.default is MISSING:
                raise _missing(f)
            spec = f.default
        store = storage_name(type(model), f)
        if store != f.target:
            model._param_alias[f.target] = store
        try:
            _declare(model, f, store, spec, factory)
        except (ValueError, TypeError) as e:
            if getattr(e, "_neml2_located", False):
                raise
            raise type(e)(f"option '{f.name}': {e}") from e
    if values:
        raise TypeError(
            f"{type(model).__name__}: unexpected constructor argument(s) {sorted(values)}; "
            f"declare them in the HitSchema (use attr=... to store them under another name)"
        )


def _declare(model: Any, f: SchemaField, store: str, spec: Any, factory: Any) -> None:
    k = f.kind
    if k in ("parameter", "buffer"):
        model._param_options[store] = f.name
    if k == "parameter":
        model.declare_typed_parameter(
            store, spec, f.type, factory=factory, allow_nonlinear=f.allow_promotion
        )
    elif k == "buffer":
        model.declare_typed_buffer(store, spec, f.type, factory=factory)
    else:
        names = [f"{store}_{i}" for i in range(len(tokens(spec)))]
        model._param_options.update(dict.fromkeys(names, f.name))
        if store != f.target:
            model._param_alias.update({f"{f.target}_{i}": n for i, n in enumerate(names)})
        for n, tok in zip(names, tokens(spec), strict=True):
            if k == "parameters":
                model.declare_typed_parameter(
                    n, tok, f.type, factory=factory, allow_nonlinear=f.allow_promotion
                )
            else:
                model.declare_typed_buffer(n, tok, f.type, factory=factory)
        setattr(model, _attr(model, f), names)
