"""``python -m neml2.hit FILE [OVERRIDE ...]``: print the parsed tree with source locations.

Each section prints as ``[path]`` and each field as ``key = value`` (value after substitution),
followed by ``file:line``. Errors print the located ``HitError`` and exit with status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from neml2.hit._api import parse_file
from neml2.hit._error import HitError
from neml2.hit._nodes import Field, Section

__all__ = ["main", "render"]


def render(root: Section) -> str:
    """One line per section (``[path]``) and field (``key = value``) with ``file:line``."""
    rows: list[tuple[str, str]] = []
    for node in root.walk():
        if node is root:
            continue
        pad = "  " * node.path.count("/")
        if isinstance(node, Section):
            rows.append((f"{pad}[{node.path}]", f"{node.file}:{node.line}"))
        elif isinstance(node, Field):
            value = node.value.replace("\n", "\\n")
            rows.append((f"{pad}{node.name} = {value}", f"{node.file}:{node.line}"))
    width = max((len(left) for left, _ in rows), default=0)
    return "".join(f"{left.ljust(width)}  # {loc}\n" for left, loc in rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m neml2.hit``."""
    parser = argparse.ArgumentParser(prog="python -m neml2.hit", description=__doc__)
    parser.add_argument("file", help="HIT input file")
    parser.add_argument("overrides", nargs="*", help="overrides such as Models/m/E:=210000")
    args = parser.parse_args(argv)
    try:
        root = parse_file(args.file, overrides=args.overrides)
    except HitError as e:
        print(e, file=sys.stderr)
        return 1
    sys.stdout.write(render(root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
