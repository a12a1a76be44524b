"""Registry of HIT-constructible object types, with lazy discovery.

Types register on import (``@register_neml2_object("Name")``). Discovery runs once, on the first
lookup or listing: every module of the built-in packages below, then every entry point of group
``neml2.objects`` (values are modules to import) of the installed distributions. ``load_module``
imports ad-hoc user code (``--load PATH``: a ``.py`` file, a package directory or a dotted name).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

__all__ = [
    "ENTRY_POINT_GROUP",
    "NotRegisteredError",
    "Registry",
    "load_module",
    "registry",
]

ENTRY_POINT_GROUP = "neml2.objects"

#: built-in packages whose modules are imported by discovery (missing ones are skipped)
BUILTIN_PACKAGES = (
    "neml2.models",
    "neml2.tensor_sources",
    "neml2.solvers",
    "neml2.es",
    "neml2.drivers",
    "neml2.data",
)
#: modules never imported by discovery (test helpers, CLIs)
_SKIP = ("neml2.models.testing", ".cli", "__main__")

C = TypeVar("C", bound=type)


class NotRegisteredError(KeyError):
    """A ``type`` that is not registered in a section (``str()`` is the plain message)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Registry:
    """Section → type name → class."""

    def __init__(self) -> None:
        self._types: dict[str, dict[str, type]] = {}
        self._discovered = False
        self._discovering = False
        self.entry_point_errors: list[str] = []
        self._loaded_eps: set[str] = set()

    def register(self, name: str, cls: type, section: str | None = None) -> None:
        """Register ``cls`` as ``name`` in ``section`` (default ``cls.SECTION``)."""
        sec = section or getattr(cls, "SECTION", None)
        if not isinstance(sec, str) or not sec:
            raise TypeError(f"register_neml2_object('{name}'): {cls.__name__} has no SECTION")
        table = self._types.setdefault(sec, {})
        old = table.get(name)
        if old is not None and old is not cls and _qualname(old) != _qualname(cls):
            raise ValueError(
                f"register_neml2_object: '{name}' already registered in [{sec}] "
                f"by {_qualname(old)}; cannot register {_qualname(cls)}"
            )
        table[name] = cls

    def discover(self) -> None:
        """Import built-in modules and entry points once (idempotent, re-entrancy safe)."""
        if self._discovered or self._discovering:
            return
        self._discovering = True
        try:
            for pkg in BUILTIN_PACKAGES:
                _import_tree(pkg)
            self.scan_entry_points()
            self._discovered = True
        finally:
            self._discovering = False

    def scan_entry_points(self) -> None:
        """Import the modules of entry points not seen yet (group ``neml2.objects``)."""
        importlib.invalidate_caches()
        for ep in _entry_points():
            key = f"{ep.name}={ep.value}"
            if key in self._loaded_eps:
                continue
            self._loaded_eps.add(key)
            try:
                ep.load()
            except Exception as e:  # a broken plugin must not break the built-ins
                self.entry_point_errors.append(f"{key}: {e!r}")

    def sections(self) -> list[str]:
        """Sections that have at least one registered type."""
        self.discover()
        return sorted(self._types)

    def types(self, section: str) -> dict[str, type]:
        """Registered types of one section (name → class)."""
        self.discover()
        return dict(self._types.get(section, {}))

    def items(self) -> Iterator[tuple[str, str, type]]:
        """Every ``(section, name, class)`` triple."""
        self.discover()
        for sec in sorted(self._types):
            for name in sorted(self._types[sec]):
                yield sec, name, self._types[sec][name]

    def get(self, section: str, name: str, *, block: str | None = None) -> type:
        """Look up a type, raising :class:`NotRegisteredError` with close-name suggestions."""
        cls = self._types.get(section, {}).get(name)
        if cls is None:
            self.discover()
            cls = self._types.get(section, {}).get(name)
        if cls is None:
            self.scan_entry_points()
            cls = self._types.get(section, {}).get(name)
        if cls is None:
            names = sorted(self._types.get(section, {}))
            close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            where = f" (section='{section}', name='{block}')" if block is not None else ""
            raise NotRegisteredError(
                f"Type '{name}' is not registered in NativeRegistry{where}.{hint} Check the "
                f"'type' of [{section}/{block}], or load the module defining it with --load."
            )
        return cls


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _entry_points() -> list[metadata.EntryPoint]:
    return list(metadata.entry_points(group=ENTRY_POINT_GROUP))


def _import_tree(package: str) -> None:
    try:
        pkg = importlib.import_module(package)
    except ModuleNotFoundError as e:
        if e.name is not None and package.startswith(e.name):
            return
        raise
    paths = getattr(pkg, "__path__", None)
    if paths is None:
        return
    for info in pkgutil.walk_packages(paths, prefix=f"{package}."):
        if any(s in info.name for s in _SKIP):
            continue
        importlib.import_module(info.name)


def load_module(spec: str) -> ModuleType:
    """Import user code for ``--load``: a ``.py`` file, a package directory or a dotted module.

    Importing runs the module's ``@register_neml2_object`` decorators.
    """
    path = Path(spec)
    if spec.endswith(".py") or path.is_dir():
        if not path.exists():
            raise FileNotFoundError(f"--load {spec}: no such file or directory")
        path = path.resolve()
        if path.is_dir():
            init = path / "__init__.py"
            if not init.is_file():
                raise ImportError(f"--load {spec}: directory has no __init__.py")
            name, location = path.name, init
            search: list[str] | None = [str(path)]
        else:
            name, location, search = f"neml2_user_{path.stem}", path, None
        if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(location):
            return sys.modules[name]
        mspec = importlib.util.spec_from_file_location(
            name, location, submodule_search_locations=search
        )
        if mspec is None or mspec.loader is None:
            raise ImportError(f"--load {spec}: cannot import")
        module = importlib.util.module_from_spec(mspec)
        sys.modules[name] = module
        try:
            mspec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
    return importlib.import_module(spec)


registry = Registry()
"""The process-wide registry."""


def register_neml2_object(name: str, *, section: str | None = None) -> Callable[[C], C]:
    """Class decorator registering a type under ``name`` in its ``SECTION``."""

    def deco(cls: C) -> C:
        registry.register(name, cls, section)
        registered: Any = cls
        if "_registered_name" not in cls.__dict__:
            registered._registered_name = name
        return cls

    return deco
