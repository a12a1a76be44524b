"""The HIT document tree: :class:`Section`, :class:`Field`, :class:`Comment`, :class:`Blank`.

Equality is structural (names, values, quote styles, ``:=`` flags, comments, blank lines and
their order); source locations are ignored, so ``parse_text(write(root)) == root``. Defining
``__eq__`` makes nodes unhashable; key dicts by ``id(node)`` or by ``node.path``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar, overload

from neml2.hit._convert import ConvertError, convert, convert_list, convert_list2d
from neml2.hit._error import HitError
from neml2.hit._getters import Getters
from neml2.hit._source import Source
from neml2.hit._syntax import block_label, check_quote, choose_quote

__all__ = ["Blank", "Comment", "Field", "Include", "Node", "Section"]

_T = TypeVar("_T")


class Node:
    """Base of all tree nodes: a name, a parent and a 1-based source location."""

    def __init__(self, name: str = "", *, file: str = "", line: int = 0, col: int = 0) -> None:
        self.name = name
        self.parent: Section | None = None
        self.file = file
        self.line = line
        self.col = col
        self._source: Source | None = None

    def _locate(self, source: Source, line: int, col: int) -> None:
        self._source, self.file, self.line, self.col = source, source.name, line, col

    @property
    def path(self) -> str:
        """'/'-joined names from the root (the root's path is ``""``)."""
        if self.parent is None:
            return ""
        parent = self.parent.path
        return f"{parent}/{self.name}" if parent else self.name

    def error(self, reason: str, line: int | None = None, col: int | None = None) -> HitError:
        """A :class:`HitError` located at this node (or at ``line:col`` of its source)."""
        line = self.line if line is None else line
        col = self.col if col is None else col
        if self._source is not None:
            return self._source.error(reason, line, col)
        return HitError(reason, self.file or "<tree>", line, col, "")


class Section(Node, Getters):
    """A block ``[name] ... []``; ``children`` keeps sections, fields, comments and blanks in order.

    ``implicit`` marks a section created by a path header ``[A/b]`` (written back that way).
    """

    def __init__(self, name: str = "", children: list[Node] | None = None, **loc: Any) -> None:
        super().__init__(name, **loc)
        self.children: list[Node] = []
        self.implicit = False
        for child in children or ():
            self.add(child)

    def add(self, node: _N) -> _N:
        """Append ``node`` as the last child and return it."""
        node.parent = self
        self.children.append(node)
        return node

    def sections(self, name: str | None = None) -> list[Section]:
        """Child sections in order (repeated names included), optionally only those called ``name``."""
        return [
            c for c in self.children if isinstance(c, Section) and (name is None or c.name == name)
        ]

    def fields(self) -> list[Field]:
        """Child fields, in order."""
        return [c for c in self.children if isinstance(c, Field)]

    def section(self, name: str) -> Section | None:
        """The first child section called ``name``."""
        for c in self.children:
            if isinstance(c, Section) and c.name == name:
                return c
        return None

    def field(self, name: str) -> Field | None:
        """The first child field called ``name``."""
        for c in self.children:
            if isinstance(c, Field) and c.name == name:
                return c
        return None

    def has_field(self, name: str) -> bool:
        """Whether a child field ``name`` exists."""
        return self.field(name) is not None

    def field_names(self) -> list[str]:
        """Names of the child fields, in order."""
        return [c.name for c in self.children if isinstance(c, Field)]

    def find(self, path: str) -> Section | Field | None:
        """The node at relative ``path`` (``'A/b/key'``), scanning repeated sections; first hit."""
        parts = [p for p in path.split("/") if p]
        return self._find(parts, (Section, Field)) if parts else self

    def find_section(self, path: str) -> Section | None:
        """The first section at relative ``path`` (scanning repeated sections), or None."""
        parts = [p for p in path.split("/") if p]
        hit = self._find(parts, (Section,)) if parts else self
        return hit if isinstance(hit, Section) else None

    def find_field(self, path: str) -> Field | None:
        """The first field at relative ``path`` (``'A/b/key'``), or None."""
        parts = [p for p in path.split("/") if p]
        hit = self._find(parts, (Field,)) if parts else None
        return hit if isinstance(hit, Field) else None

    def _find(self, parts: list[str], want: tuple[type, ...]) -> Section | Field | None:
        head, rest = parts[0], parts[1:]
        for c in self.children:
            if c.name != head:
                continue
            if isinstance(c, Section) and rest:
                hit = c._find(rest, want)
                if hit is not None:
                    return hit
            elif not rest and isinstance(c, want) and isinstance(c, (Section, Field)):
                return c
        return None

    def walk(self) -> Iterator[Section | Field]:
        """Depth-first pre-order iteration over this section and all descendant sections/fields."""
        stack: list[Section | Field] = [self]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, Section):
                kids = [c for c in node.children if isinstance(c, (Section, Field))]
                stack.extend(reversed(kids))

    def to_dict(self) -> dict[str, Any]:
        """Nested ``{name: value-or-dict}`` view (repeated sections merged, first field wins)."""
        out: dict[str, Any] = {}
        for c in self.children:
            if isinstance(c, Field):
                out.setdefault(c.name, c.value)
            elif isinstance(c, Section):
                sub = out.setdefault(c.name, {})
                if isinstance(sub, dict):
                    for k, v in c.to_dict().items():
                        sub.setdefault(k, v)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Section):
            return NotImplemented
        return self.name == other.name and self.children == other.children

    def __repr__(self) -> str:
        return f"Section({self.path or '(root)'!r}, {len(self.children)} children)"


_N = TypeVar("_N", bound=Node)


class Field(Node):
    """``key = value``: ``text`` as written (unquoted), ``value`` after ``${...}`` substitution.

    ``quote`` is one of ``''``, ``"'"``, ``'"'``, ``"'''"``; ``override`` is True for ``:=``.
    """

    def __init__(
        self, name: str, value: str, quote: str | None = None, override: bool = False, **loc: Any
    ) -> None:
        super().__init__(name, **loc)
        self.quote = ""
        self.text = ""
        self.value = ""
        self.override = override
        self._vloc: tuple[int, int] | None = None  # (line, col) of the value in its source
        self.set(value, quote)

    def set(self, value: str, quote: str | None = None) -> None:
        """Replace the value (``quote=None`` picks the simplest quote style that can hold it)."""
        quote = choose_quote(value) if quote is None else quote
        problem = check_quote(value, quote)
        if problem is not None:
            raise ValueError(f"field '{self.name}': {problem}")
        self.text = self.value = value
        self.quote = quote

    @property
    def raw(self) -> str:
        """The value as written, quotes included."""
        return f"{self.quote}{self.text}{self.quote}"

    def _fail(self, message: str) -> HitError:
        block = block_label(self.parent.path if self.parent is not None else "")
        return self.error(f"{block} field '{self.name}': {message}")

    def as_str(self) -> str:
        """The value as a string."""
        return self.value

    def as_int(self) -> int:
        """The value as an integer (``1e3`` and ``1.0`` are errors)."""
        return int(self._read(convert, int))

    def as_float(self) -> float:
        """The value as a float (``200e3`` accepted)."""
        return float(self._read(convert, float))

    def as_bool(self) -> bool:
        """The value as a boolean (only lowercase ``true``/``false``)."""
        return bool(self._read(convert, bool))

    @overload
    def as_list(self) -> list[str]: ...
    @overload
    def as_list(self, kind: type[_T]) -> list[_T]: ...
    def as_list(self, kind: type[Any] = str) -> list[Any]:
        """Whitespace-separated items, each read as ``kind`` (str, int, float or bool)."""
        return list(self._read(convert_list, kind))

    @overload
    def as_list2d(self) -> list[list[str]]: ...
    @overload
    def as_list2d(self, kind: type[_T]) -> list[list[_T]]: ...
    def as_list2d(self, kind: type[Any] = str) -> list[list[Any]]:
        """Rows separated by ``;``, items by whitespace, each read as ``kind``."""
        return list(self._read(convert_list2d, kind))

    def _read(self, reader: Any, kind: type) -> Any:
        try:
            return reader(self.value, kind)
        except ConvertError as e:
            raise self._fail(str(e)) from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Field):
            return NotImplemented
        return (self.name, self.value, self.quote, self.override) == (
            other.name,
            other.value,
            other.quote,
            other.override,
        )

    def __repr__(self) -> str:
        op = ":=" if self.override else "="
        return f"Field({self.name} {op} {self.raw})"


class Comment(Node):
    """``# text``; ``inline`` when it trails a field or section line."""

    def __init__(self, text: str, inline: bool = False, **loc: Any) -> None:
        super().__init__("", **loc)
        self.text = text
        self.inline = inline

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Comment):
            return NotImplemented
        return (self.text, self.inline) == (other.text, other.inline)

    def __repr__(self) -> str:
        return f"Comment({self.text!r}{', inline' if self.inline else ''})"


class Blank(Node):
    """An empty line."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Blank) if isinstance(other, Node) else NotImplemented

    def __repr__(self) -> str:
        return "Blank()"


class Include(Node):
    """``!include target`` kept verbatim (only in trees built for formatting)."""

    def __init__(self, target: str, **loc: Any) -> None:
        super().__init__("", **loc)
        self.target = target

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Include):
            return NotImplemented
        return self.target == other.target
