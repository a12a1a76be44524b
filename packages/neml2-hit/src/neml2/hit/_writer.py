"""Canonical HIT text: 2-space indentation per level, one item per line, comments kept.

Fields are written with their original quoting (``raw``), ``:=`` kept; a chain of sections made
by a path header is written back as ``[A/b]``; inline comments stay on their line.
"""

from __future__ import annotations

from neml2.hit._nodes import Blank, Comment, Field, Include, Node, Section

__all__ = ["write"]

_INDENT = "  "


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.attachable = False  # the last line may take an inline comment

    def put(self, line: str, attachable: bool) -> None:
        self.lines.append(line)
        self.attachable = attachable

    def children(self, nodes: list[Node], level: int) -> None:
        pad = _INDENT * level
        for node in nodes:
            if isinstance(node, Field):
                op = ":=" if node.override else "="
                self.put(f"{pad}{node.name} {op} {node.raw}", True)
            elif isinstance(node, Section):
                self.section(node, level)
            elif isinstance(node, Comment):
                if node.inline and self.attachable:
                    self.lines[-1] += f" #{node.text}"
                    self.attachable = False
                else:
                    self.put(f"{pad}#{node.text}", False)
            elif isinstance(node, Blank):
                self.put("", False)
            elif isinstance(node, Include):
                self.put(f"{pad}!include {node.target}", True)

    def section(self, node: Section, level: int) -> None:
        names = [node.name]
        while node.implicit and len(node.children) == 1 and isinstance(node.children[0], Section):
            node = node.children[0]
            names.append(node.name)
        pad = _INDENT * level
        self.put(f"{pad}[{'/'.join(names)}]", True)
        self.children(node.children, level + 1)
        self.put(f"{pad}[]", True)


def write(root: Section) -> str:
    """Canonical text of ``root``'s children; ``parse_text(write(root)) == root``."""
    w = _Writer()
    w.children(root.children, 0)
    return "".join(line + "\n" for line in w.lines)
