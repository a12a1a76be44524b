r"""``metadata.json``: writing it atomically, reading and validating it (ARTIFACT.md §2, §5).

The format and schema versions, and the checks of :func:`read_metadata`, are the C++ loader's
(``neml2/csrc/aoti/metadata.h``, reached through the :mod:`neml2.aoti._aoti` binding): one
implementation, which also loads every :class:`neml2.aoti.Model`. (The loader also compares each
graph's embedded signature with the metadata, which needs the graphs loaded.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from neml2.aoti import _aoti
from neml2.outputs import atomic_output

__all__ = [
    "FORMAT",
    "OLDEST_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "merge_leaves",
    "read_metadata",
    "write_metadata",
]

#: ``metadata.json``'s ``format`` (the runtime's ``kArtifactFormat``).
FORMAT: str = _aoti.FORMAT
#: The version this neml2's neml2-compile writes; OLDEST_SCHEMA_VERSION ... SCHEMA_VERSION are
#: read (version 3 added ``batch_rows`` to graph signatures, which version 2 graphs lack). Both
#: are the runtime's (``kSchemaVersion``, ``kOldestSchemaVersion``).
SCHEMA_VERSION: int = _aoti.SCHEMA_VERSION
OLDEST_SCHEMA_VERSION: int = _aoti.OLDEST_SCHEMA_VERSION


def write_metadata(root: Path, meta: dict[str, Any]) -> Path:
    """Write ``root/metadata.json`` atomically (temp file, fsync, rename)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / "metadata.json"
    with atomic_output(path) as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return path


def merge_leaves(root: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` with the leaves of an existing ``root/metadata.json`` of the same model added.

    Leaves are merged only when everything but ``leaves`` is identical (another dtype or device
    of the same compile request) and the leaf folder still exists; otherwise ``meta`` wins.
    """
    try:
        old = json.loads((root / "metadata.json").read_text())
    except (OSError, ValueError):
        return meta
    if not isinstance(old, dict):
        return meta
    same = {k: v for k, v in old.items() if k != "leaves"} == {
        k: v for k, v in meta.items() if k != "leaves"
    }
    if not same:
        return meta
    leaves = list(meta["leaves"])
    have = {(lf["device"], lf["dtype"]) for lf in leaves}
    for lf in old.get("leaves", []):
        key = (lf.get("device"), lf.get("dtype"))
        if key not in have and (root / str(lf.get("path", ""))).is_dir():
            leaves.append(lf)
            have.add(key)
    leaves.sort(key=lambda lf: (lf["device"], lf["dtype"]))
    return {**meta, "leaves": leaves}


def read_metadata(
    artifact: str | Path, device: str | None = None, dtype: str | torch.dtype | None = None
) -> dict[str, Any]:
    """Load and validate ``artifact/metadata.json`` (``artifact``: the folder or the file).

    The checks are the C++ loader's own (``neml2.aoti._aoti.read_metadata``): the folder and
    ``metadata.json`` exist and parse, ``format``/``schema_version`` match, the torch version
    (``major.minor.patch``) and C++ ABI match the runtime. With ``device``/``dtype`` (the other
    defaults to ``cpu``/``float64``), also that leaf: it is present (the message lists those
    there are), this CPU has the instruction-set extensions it was compiled for, and every graph
    file of its ``sha1`` map exists with that content hash. Every failure is a
    :class:`neml2.aoti.FatalError` naming the file and the fix.
    """
    meta: dict[str, Any] = json.loads(_aoti.read_metadata(artifact, device, dtype))
    return meta
