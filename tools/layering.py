"""Check that the neml2 distributions use each other through public names only.

Each folder ``packages/<dist>/src`` holds one distribution's part of the ``neml2`` namespace; a
module belongs to the distribution whose sources define it (``neml2.aoti.kernels`` to
neml2-aoti, ``neml2.outputs`` to neml2-models). Code of one distribution may reach another's
only through public names, so that each can change its private modules freely. Reported, for a
source file of distribution D and a name owned by another distribution E:

* ``import``/``from ... import`` of a module path with a private component (``neml2.tensors._eager``;
  dunder modules such as ``__about__`` are public), or of a private name from E's module;
* a string literal that names such a module (``importlib.import_module("neml2.aoti._aoti")``,
  lazy-import tables);
* a read or write of a private attribute that E's code sets on its own instances
  (``self._seeds = ...``) and D's code never sets on its own (``system._seeds``,
  ``getattr(m, "_hit_name")``), on anything but ``self``/``cls``.

Usage: ``python tools/layering.py [ROOT]``; prints one line per finding, exit status 1 if any.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "Tree", "check", "main"]

_MODULE_TEXT = re.compile(r"^neml2(\.[A-Za-z_][A-Za-z0-9_]*)+$")
_ACCESSORS = {"getattr", "setattr", "hasattr", "delattr"}


def is_private(name: str) -> bool:
    """``_x`` but not ``__x__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@dataclass(frozen=True)
class Finding:
    """One use of another distribution's private name."""

    file: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text}"


class Tree:
    """The distributions under ``<root>/packages`` and the modules each one owns."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.sources: dict[str, list[Path]] = {}
        self.owners: dict[str, str] = {}
        for src in sorted(root.glob("packages/*/src")):
            dist = src.parent.name
            files = sorted(p for p in src.rglob("*.py") if "__pycache__" not in p.parts)
            self.sources[dist] = files
            for path in files:
                parts = path.relative_to(src).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                self.owners.setdefault(".".join(parts), dist)
        self.self_attributes = {d: _self_attributes(files) for d, files in self.sources.items()}
        self.defined = {d: _defined_names(files) for d, files in self.sources.items()}

    def owner(self, module: str) -> str | None:
        """The distribution of ``module``, or of its longest known prefix; None outside neml2."""
        parts = module.split(".")
        for n in range(len(parts), 0, -1):
            dist = self.owners.get(".".join(parts[:n]))
            if dist is not None:
                return dist
        return None

    def foreign_private(self, dist: str) -> set[str]:
        """Private attributes other distributions set on their instances, that ``dist`` neither
        sets on its own nor defines (as a function, method or class attribute)."""
        others = set().union(*(a for d, a in self.self_attributes.items() if d != dist))
        return others - self.self_attributes[dist] - self.defined[dist]


def _self_attributes(files: list[Path]) -> set[str]:
    """Names ``_x`` assigned as ``self._x`` anywhere in ``files``."""
    found: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                if (
                    isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "self"
                    and is_private(t.attr)
                ):
                    found.add(t.attr)
    return found


def _defined_names(files: list[Path]) -> set[str]:
    """Private names of functions, methods, classes and class attributes defined in ``files``."""
    found: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.add(node.name)
            elif isinstance(node, ast.ClassDef):
                found.add(node.name)
                for stmt in node.body:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                    if isinstance(stmt, ast.AnnAssign):
                        targets = [stmt.target]
                    found.update(t.id for t in targets if isinstance(t, ast.Name))
    return {name for name in found if is_private(name)}


def _private_module(module: str) -> bool:
    return any(is_private(part) for part in module.split("."))


def _findings(tree: Tree, dist: str, path: Path) -> Iterator[tuple[int, str]]:
    foreign_attrs = tree.foreign_private(dist)

    def foreign(module: str) -> str | None:
        owner = tree.owner(module)
        return owner if owner is not None and owner != dist else None

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                owner = foreign(alias.name)
                if owner and _private_module(alias.name):
                    yield node.lineno, f"imports {owner}'s private module {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            owner = foreign(node.module)
            if owner and _private_module(node.module):
                yield node.lineno, f"imports from {owner}'s private module {node.module}"
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                sub_owner = foreign(full) if full in tree.owners else owner
                if sub_owner and is_private(alias.name):
                    yield node.lineno, f"imports {sub_owner}'s private name {full}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if _MODULE_TEXT.match(text) and _private_module(text):
                owner = foreign(text)
                if owner:
                    yield node.lineno, f"names {owner}'s private module '{text}'"
        elif isinstance(node, ast.Attribute) and node.attr in foreign_attrs:
            if not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}):
                yield node.lineno, f"uses another distribution's private attribute .{node.attr}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _ACCESSORS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in foreign_attrs
        ):
            attr = node.args[1].value
            yield node.lineno, f"uses another distribution's private attribute '{attr}'"


def check(root: Path) -> list[Finding]:
    """Every finding in the sources of the distributions under ``root/packages``."""
    tree = Tree(root)
    out = []
    for dist, files in tree.sources.items():
        for path in files:
            for line, text in _findings(tree, dist, path):
                out.append(Finding(path.relative_to(root), line, text))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    findings = check(root)
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} use(s) of another distribution's private names", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
