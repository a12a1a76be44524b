"""Declarative HIT schemas for registered objects.

A class declares ``hit = HitSchema(field, ...)``; each field says how one HIT option becomes a
constructor value (a variable name, a parameter spec, a typed option, a dependency on another
block). The same schema drives construction (:meth:`neml2.models.model.Model.from_hit`), the
strict unknown-option check, and the ``neml2-syntax`` catalog.

Variable-name resolution for ``input``/``output``: the HIT value if given, else the string
``default``, else the option name; :data:`BLOCK_NAME` resolves to the block's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "BLOCK_NAME",
    "MISSING",
    "FieldKind",
    "HitSchema",
    "SchemaField",
    "buffer",
    "buffers",
    "dependency",
    "derived_input",
    "derived_output",
    "input",
    "option",
    "output",
    "parameter",
    "parameters",
    "var_inputs",
]


class _Missing:
    """Sentinel type for 'no default' (the option is required)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""Default marker meaning "required option"."""

BLOCK_NAME = "<block name>"
"""Default variable name meaning "the HIT block's name" (e.g. ``ScalarConstantParameter``)."""

FieldKind = Literal[
    "input",
    "output",
    "derived_input",
    "derived_output",
    "var_inputs",
    "parameter",
    "parameters",
    "buffer",
    "buffers",
    "option",
    "dependency",
]

Reader = Callable[[str], Any]


@dataclass(frozen=True)
class SchemaField:
    """One declared HIT option (or derived variable) of a schema."""

    kind: FieldKind
    name: str
    type: Any = None
    doc: str = ""
    attr: str | None = None
    default: Any = MISSING
    priority: str | None = None
    ref: str | None = None
    suffix: str = ""
    override: str | None = None
    reader: Reader | None = None
    optional_reader: bool = False
    getter: str | None = None
    allow_promotion: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def required(self) -> bool:
        """True when the option has no default."""
        return self.default is MISSING

    @property
    def target(self) -> str:
        """Attribute name the resolved value is stored under on the instance."""
        return self.attr or self.name.replace("~", "_")

    @property
    def knob(self) -> str | None:
        """HIT option key this field reads (``None`` for derived inputs without override)."""
        if self.kind == "derived_output":
            return f"{self.ref}{self.suffix}"
        if self.kind == "derived_input":
            return self.override
        return self.name

    @property
    def ftype(self) -> str:
        """Catalog field type: ``INPUT``, ``OUTPUT``, ``PARAMETER`` or ``NONE``."""
        if self.kind in ("input", "var_inputs"):
            return "INPUT"
        if self.kind in ("output", "derived_output"):
            return "OUTPUT"
        if self.kind in ("parameter", "parameters"):
            return "PARAMETER"
        return "NONE"


class HitSchema:
    """Ordered collection of :class:`SchemaField` declared on a registered class."""

    def __init__(self, *fields: SchemaField) -> None:
        seen: dict[str, SchemaField] = {}
        for f in fields:
            if not isinstance(f, SchemaField):
                raise TypeError(f"HitSchema: expected schema fields, got {type(f).__name__}")
            if f.kind not in ("derived_input", "derived_output") and not (
                f.doc and f.doc.isascii()
            ):
                raise ValueError(f"HitSchema: field '{f.name}' needs a non-empty ASCII doc")
            key = f.knob
            if key is not None:
                if key in seen:
                    raise ValueError(f"HitSchema: option '{key}' declared twice")
                seen[key] = f
        self.fields: tuple[SchemaField, ...] = fields
        self._by_key = seen

    def __iter__(self) -> Any:
        return iter(self.fields)

    def __add__(self, other: HitSchema) -> HitSchema:
        """Concatenate two schemas (base-class fields first)."""
        return HitSchema(*self.fields, *other.fields)

    def field(self, key: str) -> SchemaField | None:
        """The field reading HIT option ``key`` (or ``None``)."""
        return self._by_key.get(key)

    def option_names(self) -> list[str]:
        """Every accepted HIT option key (excluding ``type``), in declaration order."""
        return list(self._by_key)

    # static aliases so ``HitSchema.input(...)`` works as well as ``schema.input(...)``
    input: staticmethod[..., SchemaField]
    output: staticmethod[..., SchemaField]


def input(
    name: str, type: Any, doc: str, *, default: str | Any | None = MISSING, attr: str | None = None
) -> SchemaField:
    """An input variable whose name is read from option ``name``."""
    return SchemaField("input", name, type, doc, attr=attr, default=default)


def output(
    name: str,
    type: Any,
    doc: str,
    *,
    default: str | Any | None = MISSING,
    attr: str | None = None,
    priority: str | None = None,
) -> SchemaField:
    """An output variable whose name is read from option ``name``; ``priority`` ∈ {None, 'high', 'low'}."""
    if priority not in (None, "high", "low"):
        raise ValueError(f"output '{name}': priority must be None, 'high' or 'low'")
    return SchemaField("output", name, type, doc, attr=attr, default=default, priority=priority)


def derived_input(
    ref: str,
    type: Any,
    *,
    suffix: str,
    attr: str | None = None,
    override: str | None = None,
    doc: str = "",
) -> SchemaField:
    """Input named ``resolved(ref) + suffix`` (e.g. ``x~1``); a non-empty ``override`` option wins."""
    return SchemaField(
        "derived_input",
        f"{ref}{suffix}",
        type,
        doc,
        attr=attr,
        ref=ref,
        suffix=suffix,
        override=override,
        default=None,
    )


def derived_output(
    ref: str,
    type: Any,
    *,
    suffix: str,
    attr: str | None = None,
    doc: str = "",
    priority: str | None = None,
) -> SchemaField:
    """Output named ``resolved(ref) + suffix``; the option ``ref + suffix`` renames it."""
    return SchemaField(
        "derived_output",
        f"{ref}{suffix}",
        type,
        doc,
        attr=attr,
        ref=ref,
        suffix=suffix,
        default=None,
        priority=priority,
    )


def var_inputs(
    name: str, type: Any, doc: str, *, default: Any = MISSING, attr: str | None = None
) -> SchemaField:
    """A list option whose tokens are each an input variable (``from = 'a b'``)."""
    return SchemaField("var_inputs", name, type, doc, attr=attr, default=default)


def parameter(
    name: str,
    type: Any,
    doc: str,
    *,
    default: Any = MISSING,
    attr: str | None = None,
    allow_promotion: bool = False,
) -> SchemaField:
    """A parameter spec (literal, ``[Tensors]`` name, or — with promotion — a variable)."""
    return SchemaField(
        "parameter", name, type, doc, attr=attr, default=default, allow_promotion=allow_promotion
    )


def parameters(
    name: str,
    type: Any,
    doc: str,
    *,
    default: Any = MISSING,
    attr: str | None = None,
    allow_promotion: bool = False,
) -> SchemaField:
    """A list of parameter specs; token ``i`` becomes parameter ``<attr or name>_<i>``."""
    return SchemaField(
        "parameters", name, type, doc, attr=attr, default=default, allow_promotion=allow_promotion
    )


def buffer(
    name: str, type: Any, doc: str, *, default: Any = MISSING, attr: str | None = None
) -> SchemaField:
    """A constant tensor (literal or ``[Tensors]`` name), registered as a buffer."""
    return SchemaField("buffer", name, type, doc, attr=attr, default=default)


def buffers(
    name: str, type: Any, doc: str, *, default: Any = MISSING, attr: str | None = None
) -> SchemaField:
    """A list of constant tensors; token ``i`` becomes buffer ``<attr or name>_<i>``."""
    return SchemaField("buffers", name, type, doc, attr=attr, default=default)


def option(
    name: str,
    type: Any,
    doc: str,
    *,
    default: Any = MISSING,
    attr: str | None = None,
    reader: Reader | None = None,
    optional_reader: bool = False,
) -> SchemaField:
    """A plain typed option: ``str``, ``int``, ``float``, ``bool`` or ``list[...]`` of those.

    ``reader`` converts the raw HIT text instead (``optional_reader``: only when given).
    """
    return SchemaField(
        "option",
        name,
        type,
        doc,
        attr=attr,
        default=default,
        reader=reader,
        optional_reader=optional_reader,
    )


def dependency(
    name: str, getter: str, doc: str, *, default: Any = MISSING, attr: str | None = None
) -> SchemaField:
    """The name of another block, resolved through ``factory.<getter>(name)``."""
    return SchemaField("dependency", name, None, doc, attr=attr, default=default, getter=getter)


HitSchema.input = staticmethod(input)
HitSchema.output = staticmethod(output)
for _name in (
    "derived_input",
    "derived_output",
    "var_inputs",
    "parameter",
    "parameters",
    "buffer",
    "buffers",
    "option",
    "dependency",
):
    setattr(HitSchema, _name, staticmethod(globals()[_name]))
