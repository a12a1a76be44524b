"""Input-file factory: HIT blocks → objects, lazily built and cached per (section, name).

``load_input``/``load_string`` parse a file or text (with ``pre``/``post`` snippets and
command-line overrides) and return an :class:`InputFile` whose getters build objects on demand.
A block is built into a temporary and cached only on success; a block reached again while it
is being built is a cycle. Errors raised while building carry ``file:line: [Section/name]
(type='T')``.
"""

from __future__ import annotations

import contextlib
import difflib
import keyword
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import torch
from torch import nn

from neml2._registry import NotRegisteredError, load_module, register_neml2_object, registry
from neml2.hit import HitError, Section, parse_file, parse_text
from neml2.schema import MISSING, HitSchema, SchemaField

if TYPE_CHECKING:
    from neml2.drivers import Driver
    from neml2.es import ModelNonlinearSystem
    from neml2.models.route import RouteModel
    from neml2.settings import Settings
    from neml2.solvers import LinearSolver, Newton, Preconditioner

__all__ = [
    "InputError",
    "InputFile",
    "InputWarning",
    "kwargs_from_hit",
    "load_input",
    "load_model",
    "load_module",
    "load_string",
    "register_neml2_object",
    "reject_unknown_fields",
]


class InputError(ValueError):
    """Bad input file content (names the file, block and option at fault)."""


class InputWarning(UserWarning):
    """Input-file content that is accepted but has no effect (names the file, line and block)."""


class MissingBlockError(KeyError):
    """A referenced block does not exist (``str()`` is the plain message)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _loc(node: Section) -> str:
    return f"{node.file or '<string>'}:{node.line}"


def _read_option(node: Section, f: SchemaField, key: str) -> Any:
    if f.reader is not None:
        return f.reader(node.get_str(key))
    t = f.type
    if t is bool:
        return node.get_bool(key)
    if t is int:
        return node.get_int(key)
    if t is float:
        return node.get_float(key)
    if t in (list, tuple) or t == list[str]:
        return node.get_str_list(key)
    if t == list[float]:
        return node.get_float_list(key)
    if t == list[int]:
        return node.get_int_list(key)
    if t == list[bool]:
        return node.get_bool_list(key)
    if t == list[list[str]]:
        return node.get_str_list2d(key)
    if t == list[list[float]]:
        return node.get_float_list2d(key)
    return node.get_str(key)


#: field kinds whose value has no fallback (variable names default to the field's own name)
_REQUIRED_KINDS = ("option", "dependency", "parameter", "parameters", "buffer", "buffers")


def kwargs_from_hit(cls: Any, node: Section, factory: Any) -> dict[str, Any]:
    """Constructor values for the schema options present in ``node`` (typed by field kind).

    A required option (no default) that ``node`` lacks is a ``ValueError`` naming it.
    """
    schema: HitSchema | None = getattr(cls, "hit", None)
    out: dict[str, Any] = {}
    if schema is None:
        return out
    for f in schema.fields:
        key = f.knob
        if key is None:
            continue
        if not node.has_field(key):
            if f.default is MISSING and f.kind in _REQUIRED_KINDS:
                raise ValueError(f"missing required option '{key}' ({f.doc})")
            continue
        k = f.kind
        if k in ("var_inputs", "parameters", "buffers"):
            out[key] = node.get_str_list(key)
        elif k == "option":
            out[key] = _read_option(node, f, key)
        else:
            out[key] = node.get_str(key)
    return out


def reject_unknown_fields(cls: Any, node: Section) -> None:
    """Raise :class:`InputError` for options ``cls``'s schema does not declare."""
    schema: HitSchema | None = getattr(cls, "hit", None)
    if schema is None or not getattr(cls, "STRICT_OPTIONS", True):
        return
    allowed = {"type", *schema.option_names(), *getattr(cls, "EXTRA_OPTIONS", ())}
    unknown = [k for k in node.field_names() if k not in allowed]
    if not unknown:
        return
    hints = []
    for k in unknown:
        close = difflib.get_close_matches(k, sorted(allowed), n=1)
        if close:
            hints.append(f"'{k}' -> did you mean '{close[0]}'?")
    field = node.field(unknown[0])
    where = f"{field.file}:{field.line}" if field is not None else _loc(node)
    raise InputError(
        f"{where}: [{node.path}] (type='{node.get_str('type')}'): unknown option(s) {unknown}. "
        f"Accepted: {sorted(allowed)}. {' '.join(hints) + ' ' if hints else ''}"
        f"Remove or rename the option(s)."
    )


def _with_context(e: Exception, prefix: str) -> Exception:
    msg = f"{prefix}{e}"
    new: Exception
    if isinstance(e, KeyError):
        new = MissingBlockError(msg)
    else:
        try:
            new = type(e)(msg)
        except Exception:
            new = InputError(msg)
    new._neml2_located = True  # type: ignore[attr-defined]
    return new


class InputFile:
    """Objects of a parsed input file; getters build lazily and cache per (section, name)."""

    def __init__(
        self,
        root: Section,
        path: str | Path | None = None,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | str | None = None,
        allow_python: bool | None = None,
    ) -> None:
        self.root = root
        #: ``[Tensors] type = Python`` blocks may be evaluated (``None``: as
        #: ``NEML2_ALLOW_PYTHON_TENSORS`` says, allowed when unset)
        self.allow_python = allow_python
        self.path = Path(path) if path is not None else None
        self.device = torch.device(device) if device is not None else None
        self.dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
        self._cache: dict[tuple[str, str], Any] = {}
        self._building: list[tuple[str, str]] = []
        self._settings: Settings | None = None

    @property
    def filename(self) -> str:
        """Name of the input file (or ``<string>``)."""
        return str(self.path) if self.path is not None else (self.root.file or "<string>")

    @property
    def directory(self) -> Path:
        """Directory relative paths in the file are resolved against."""
        return self.path.parent if self.path is not None else Path.cwd()

    # ---------------------------------------------------------------------------- lookup
    def _blocks(self, section: str, name: str) -> list[Section]:
        """Every block ``[section/name]`` in file order (repeated top-level sections scanned)."""
        return [c for sec in self.root.sections(section) for c in sec.sections(name)]

    def node(self, section: str, name: str) -> Section | None:
        """The block ``[section/name]`` (repeated top-level sections scanned; first hit)."""
        blocks = self._blocks(section, name)
        return blocks[0] if blocks else None

    @staticmethod
    def _warn_repeats(section: str, name: str, blocks: list[Section]) -> None:
        """Warn about every block after the first (ignored: the first hit wins)."""
        for rep in blocks[1:]:
            fields = ", ".join(f.name for f in rep.fields()) or "no fields"
            warnings.warn(
                f"{_loc(rep)}: [{section}/{name}] repeats the block at {_loc(blocks[0])} and is "
                f"ignored (the first definition wins, as in NEML2 v3): {fields}; merge it into "
                "the first block",
                InputWarning,
                stacklevel=4,
            )

    def names(self, section: str) -> list[str]:
        """Block names of a section, in file order."""
        out: list[str] = []
        for sec in self.root.sections(section):
            out += [s.name for s in sec.sections() if s.name not in out]
        return out

    def has(self, section: str, name: str) -> bool:
        """True if ``[section/name]`` exists."""
        return self.node(section, name) is not None

    def get_object(self, section: str, name: str) -> Any:
        """Build (once) and return the object of ``[section/name]``."""
        key = (section, name)
        obj = self._cache.get(key)
        if obj is not None:
            return obj
        if key in self._building:
            chain = " -> ".join(f"[{s}/{n}]" for s, n in [*self._building, key])
            raise InputError(f"{self.filename}: circular reference between blocks: {chain}")
        blocks = self._blocks(section, name)
        if not blocks:
            raise MissingBlockError(f"No [{section}/{name}] found in {self.filename}")
        node = blocks[0]
        self._warn_repeats(section, name, blocks)
        self._building.append(key)
        try:
            obj = self._build(section, name, node)
        finally:
            self._building.pop()
        self._cache[key] = obj
        return obj

    def _build(self, section: str, name: str, node: Section) -> Any:
        if keyword.iskeyword(name):
            raise InputError(
                f"{_loc(node)}: [{section}/{name}]: block name '{name}' is a Python keyword"
            )
        tname = node.get_str("type")
        try:
            cls: Any = registry.get(section, tname, block=name)
        except NotRegisteredError as e:
            err = NotRegisteredError(f"{_loc(node)}: {e}")
            err._neml2_located = True  # type: ignore[attr-defined]  # kept by the referring block
            raise err from None
        prefix = f"{_loc(node)}: [{node.path}] (type='{tname}'): "
        try:
            reject_unknown_fields(cls, node)
            obj = cls.from_hit(node, self)
        except HitError:
            raise
        except (ValueError, TypeError, KeyError) as e:
            if getattr(e, "_neml2_located", False) or isinstance(e, InputError):
                raise
            raise _with_context(e, prefix) from e
        with contextlib.suppress(AttributeError, TypeError):
            obj._hit_name = name
        return self._convert(obj)

    def _convert(self, obj: Any) -> Any:
        if self.device is None and self.dtype is None:
            return obj
        if isinstance(obj, nn.Module):
            return obj.to(device=self.device, dtype=self.dtype)
        data = getattr(obj, "data", None)
        if isinstance(data, torch.Tensor) and data.is_floating_point():
            from dataclasses import replace

            return replace(obj, data=data.to(device=self.device, dtype=self.dtype))
        if isinstance(obj, torch.Tensor) and obj.is_floating_point():
            return obj.to(device=self.device, dtype=self.dtype)
        return obj

    # ---------------------------------------------------------------------------- getters
    def get_model(self, name: str) -> RouteModel:
        """The model of ``[Models/name]`` (a py-eager :class:`~neml2.models.Model`, or py-aoti's
        wrapper for ``type = AOTIModel``)."""
        return cast("RouteModel", self.get_object("Models", name))

    def has_model(self, name: str) -> bool:
        """True if ``[Models/name]`` exists."""
        return self.has("Models", name)

    def get_tensor(self, name: str) -> Any:
        """The tensor of ``[Tensors/name]``."""
        return self.get_object("Tensors", name)

    def has_tensor(self, name: str) -> bool:
        """True if ``[Tensors/name]`` exists."""
        return self.has("Tensors", name)

    def get_solver(self, name: str) -> Newton | LinearSolver | Preconditioner:
        """The solver of ``[Solvers/name]``."""
        return cast("Newton | LinearSolver | Preconditioner", self.get_object("Solvers", name))

    def get_equation_system(self, name: str) -> ModelNonlinearSystem:
        """The equation system of ``[EquationSystems/name]``."""
        return cast("ModelNonlinearSystem", self.get_object("EquationSystems", name))

    def get_driver(self, name: str) -> Driver:
        """The driver of ``[Drivers/name]``."""
        return cast("Driver", self.get_object("Drivers", name))

    def get_data(self, name: str) -> Any:
        """The data object of ``[Data/name]``."""
        return self.get_object("Data", name)

    @property
    def settings(self) -> Settings:
        """The ``[Settings]`` of the file."""
        if self._settings is None:
            from neml2.settings import Settings

            self._settings = Settings.from_root(self.root)
        return self._settings


def _dtype(dtype: torch.dtype | str | None) -> torch.dtype | None:
    if isinstance(dtype, str):
        d = getattr(torch, dtype, None)
        if not isinstance(d, torch.dtype):
            raise ValueError(f"unknown dtype '{dtype}'")
        return d
    return dtype


def _snippets(text: str | Sequence[str]) -> str:
    """HIT text given as one string or, as NEML2 v3 takes it, a sequence of snippets."""
    return text if isinstance(text, str) else "\n".join(text)


def load_input(
    path: str | Path,
    *,
    pre: str | Sequence[str] = "",
    post: str | Sequence[str] = "",
    additional_args: Sequence[str] | str = (),
    device: torch.device | str | None = None,
    dtype: torch.dtype | str | None = None,
    allow_python: bool | None = None,
) -> InputFile:
    """Parse an input file (``additional_args``: command-line overrides like ``Models/m/E:=1``;
    ``pre``/``post``: HIT text before/after the file, one string or a sequence of snippets;
    ``allow_python=False`` refuses ``[Tensors] type = Python`` blocks, ``None`` follows
    ``NEML2_ALLOW_PYTHON_TENSORS``)."""
    args = additional_args.split() if isinstance(additional_args, str) else list(additional_args)
    root = parse_file(path, pre=_snippets(pre), post=_snippets(post), overrides=args)
    return InputFile(root, path, device=device, dtype=_dtype(dtype), allow_python=allow_python)


def load_string(
    text: str,
    *,
    pre: str | Sequence[str] = "",
    post: str | Sequence[str] = "",
    additional_args: Sequence[str] | str = (),
    device: torch.device | str | None = None,
    dtype: torch.dtype | str | None = None,
    filename: str = "<string>",
    allow_python: bool | None = None,
) -> InputFile:
    """Parse HIT ``text`` (relative paths resolve against the working directory;
    ``allow_python`` as for :func:`load_input`)."""
    args = additional_args.split() if isinstance(additional_args, str) else list(additional_args)
    root = parse_text(text, filename, pre=_snippets(pre), post=_snippets(post), overrides=args)
    return InputFile(root, None, device=device, dtype=_dtype(dtype), allow_python=allow_python)


def load_model(
    path: str | Path,
    model_name: str,
    *,
    device: torch.device | str | None = None,
    dtype: torch.dtype | str | None = None,
    allow_python: bool | None = None,
) -> RouteModel:
    """Load ``[Models/<model_name>]`` from an input file (``allow_python``: see
    :func:`load_input`)."""
    return load_input(path, device=device, dtype=dtype, allow_python=allow_python).get_model(
        model_name
    )


def load_nonlinear_system(
    path: str | Path,
    name: str,
    *,
    device: torch.device | str | None = None,
    dtype: torch.dtype | str | None = None,
) -> ModelNonlinearSystem:
    """Load ``[EquationSystems/name]`` from an input file (e.g. for the pyzag adapter)."""
    return load_input(path, device=device, dtype=dtype).get_equation_system(name)


__all__ += ["MissingBlockError", "NotRegisteredError", "load_nonlinear_system"]
