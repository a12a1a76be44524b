r"""The HIT stub ``<name>_aoti.i`` (ARTIFACT.md §4).

The input file (after overrides) with every ``[Models]`` block replaced by one
``[<name>] type = AOTIModel artifact_path = '<relative path>' []``; ``[EquationSystems]``,
``[Solvers]`` and ``[Data]`` are dropped, ``[Drivers]`` is kept only for ``--driver``;
``[Settings]`` loses the ``aoti_*`` keys of NEML2 v3. ``[Tensors]`` and comments are kept.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from neml2.hit import Field, Node, Section, parse_file, write
from neml2.outputs import atomic_output

__all__ = ["write_stub"]

_DROP = {"EquationSystems", "Solvers", "Data"}
_V3_SETTINGS = {"aoti_mode", "aoti_cache_dir", "aoti_device"}


def _relative(target: Path, start: Path) -> str:
    try:
        return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
    except ValueError:  # different drive (Windows): no relative path exists
        return target.resolve().as_posix()


def write_stub(
    input_file: str | Path,
    overrides: Sequence[str],
    name: str,
    artifact_root: Path,
    stub: Path,
    keep_drivers: bool,
    pre: Sequence[str] = (),
) -> Path:
    """Write the stub for the artifact at ``artifact_root`` to ``stub``; returns ``stub``."""
    root = parse_file(input_file, pre="\n".join(pre), overrides=list(overrides))
    drop = set(_DROP) | (set() if keep_drivers else {"Drivers"})
    models = Section("Models")
    block = models.add(Section(name))
    block.add(Field("type", "AOTIModel"))
    block.add(Field("artifact_path", _relative(artifact_root, stub.parent), "'"))
    kept: list[Node] = []
    placed = False
    for child in root.children:
        if isinstance(child, Section) and child.name == "Models":
            if not placed:
                kept.append(models)
                placed = True
            continue
        if isinstance(child, Section) and child.name in drop:
            continue
        if isinstance(child, Section) and child.name == "Settings":
            child.children = [
                c for c in child.children if not (isinstance(c, Field) and c.name in _V3_SETTINGS)
            ]
        kept.append(child)
    if not placed:
        kept.append(models)
    root.children = []
    for c in kept:
        root.add(c)
    stub.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(stub) as fh:
        fh.write(write(root))
    return stub
