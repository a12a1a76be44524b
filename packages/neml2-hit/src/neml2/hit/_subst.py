"""``${...}`` brace expressions, evaluated on the whole (merged) tree.

``${A/x}`` is the value of the field at root-relative path ``A/x`` (itself substituted);
``${env VAR}`` is the environment variable (``''`` if unset); ``${raw a b c}`` concatenates its
words (``abc``). Inner expressions are evaluated first. ``'''`` values are verbatim (never
substituted). ``fparse``/``units`` and unknown commands are errors.
"""

from __future__ import annotations

import os

from neml2.hit._error import HitError
from neml2.hit._nodes import Field, Section
from neml2.hit._syntax import block_label

__all__ = ["substitute"]

_MAX_DEPTH = 64


class _Substituter:
    def __init__(self, root: Section) -> None:
        self.root = root
        self.done: set[int] = set()
        self.active: list[Field] = []

    def resolve(self, f: Field) -> str:
        if id(f) in self.done:
            return f.value
        if any(a is f for a in self.active):
            chain = " -> ".join(a.path for a in [*self.active, f])
            raise self._fail(self.active[-1], 0, f"substitution cycle: {chain}")
        if len(self.active) >= _MAX_DEPTH:
            raise self._fail(f, 0, "brace expressions nested too deeply")
        self.active.append(f)
        try:
            if f.quote == "'''" or "${" not in f.text:
                f.value = f.text
            else:
                f.value = self.expand(f, f.text, 0, 0)
        finally:
            self.active.pop()
        self.done.add(id(f))
        return f.value

    def _fail(self, f: Field, offset: int, reason: str) -> HitError:
        block = block_label(f.parent.path if f.parent is not None else "")
        reason = f"{block} field '{f.name}': {reason}"
        if f._vloc is None:
            return f.error(reason)
        line, col = f._vloc
        before = f.text[:offset]
        newlines = before.count("\n")
        if newlines:
            return f.error(reason, line + newlines, offset - before.rfind("\n"))
        return f.error(reason, line, col + len(f.quote) + offset)

    def expand(self, f: Field, text: str, base: int, depth: int) -> str:
        if depth > _MAX_DEPTH:
            raise self._fail(f, base, "brace expressions nested too deeply")
        out: list[str] = []
        i = 0
        while True:
            j = text.find("${", i)
            if j < 0:
                out.append(text[i:])
                return "".join(out)
            out.append(text[i:j])
            k, level = j + 2, 1
            while k < len(text):
                if text.startswith("${", k):
                    level, k = level + 1, k + 2
                    continue
                if text[k] == "}":
                    level -= 1
                    if level == 0:
                        break
                k += 1
            if level:
                raise self._fail(f, base + j, "unterminated brace expression: missing '}'")
            inner = self.expand(f, text[j + 2 : k], base + j + 2, depth + 1)
            out.append(self.evaluate(f, inner, base + j))
            i = k + 1

    def evaluate(self, f: Field, body: str, offset: int) -> str:
        words = body.split()
        if not words:
            raise self._fail(f, offset, "empty brace expression '${}'")
        cmd, args = words[0], words[1:]
        if cmd in ("fparse", "units"):
            reason = (
                f"unsupported brace expression '${{{cmd} ...}}': fparse and units are not available"
            )
            raise self._fail(f, offset, reason)
        if cmd == "env":
            if len(args) != 1:
                raise self._fail(f, offset, "brace expression: ${env VAR} takes one variable name")
            try:
                return os.environ.get(args[0], "")
            except (ValueError, UnicodeError):
                return ""
        if cmd == "raw":
            return "".join(args)
        if args:
            raise self._fail(f, offset, f"unknown brace expression command '{cmd}'")
        target = self.root.find_field(cmd)
        if target is None:
            reason = f"brace expression: no parameter '{cmd}' found in tree"
            raise self._fail(f, offset, reason)
        return self.resolve(target)


def substitute(root: Section) -> None:
    """(Re-)evaluate every field value of ``root`` from its written text."""
    sub = _Substituter(root)
    for node in root.walk():
        if isinstance(node, Field):
            sub.resolve(node)
