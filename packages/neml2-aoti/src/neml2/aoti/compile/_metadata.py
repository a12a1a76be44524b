r"""``metadata.json``: writing it atomically, reading and validating it (ARTIFACT.md §2, §5).

:func:`read_metadata` performs the same checks, with the same messages, as the C++ loader:
the artifact folder and ``metadata.json`` exist, ``format``/``schema_version`` match, the torch
version (``major.minor.patch``) and C++ ABI match the running torch, and (when asked) the
``<device>/<dtype>`` leaf exists and every graph file it names matches its recorded SHA-1. (The
C++ loader also compares each graph's embedded signature with the metadata.) Every failure is a
:class:`neml2.aoti.FatalError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from neml2.aoti._errors import FatalError
from neml2.aoti.compile._signature import file_sha1
from neml2.outputs import atomic_output

__all__ = [
    "FORMAT",
    "OLDEST_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "merge_leaves",
    "read_metadata",
    "torch_release",
    "write_metadata",
]

FORMAT = "neml2-aoti"
#: The version this neml2's neml2-compile writes; OLDEST_SCHEMA_VERSION ... SCHEMA_VERSION are
#: read (version 3 added ``batch_rows`` to graph signatures, which version 2 graphs lack).
SCHEMA_VERSION = 3
OLDEST_SCHEMA_VERSION = 2


def torch_release(version: str | None = None) -> str:
    """``major.minor.patch`` of a torch version string (``"2.13.0+cpu"`` → ``"2.13.0"``)."""
    v = torch.__version__ if version is None else version
    return str(v).split("+", 1)[0]


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

    With ``device``/``dtype``, also require that leaf (``cpu``/``float64`` …).
    """
    p = Path(artifact)
    root = p.parent if p.name == "metadata.json" else p
    if not root.is_dir():
        raise FatalError(
            f"AOTI artifact folder '{root}' does not exist: run neml2-compile again, or copy the "
            f"artifact folder next to its stub"
        )
    path = root / "metadata.json"
    if not path.is_file():
        raise FatalError(
            f"AOTI artifact '{root}' has no metadata.json: the folder is not a neml2-compile "
            f"artifact or is incomplete; run neml2-compile again"
        )
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise FatalError(f"AOTI artifact '{path}': cannot read metadata ({e}); run "
                         f"neml2-compile again") from None  # fmt: skip
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else None
        raise FatalError(
            f"AOTI artifact '{path}': format {got!r} is not '{FORMAT}' (not written by this "
            f"neml2's neml2-compile): recompile with neml2-compile"
        )
    sv = meta.get("schema_version")
    if not isinstance(sv, int) or not OLDEST_SCHEMA_VERSION <= sv <= SCHEMA_VERSION:
        raise FatalError(
            f"AOTI artifact '{path}' was written with schema version {sv}, this neml2 reads "
            f"{OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION}: recompile with neml2-compile"
        )
    built, running = torch_release(str(meta.get("torch_version"))), torch_release()
    if built != running:
        raise FatalError(
            f"AOTI artifact '{path}' was built with torch {built}, running torch {running}: "
            f"recompile with neml2-compile under this torch"
        )
    abi = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    if meta.get("cxx11_abi") != abi:
        raise FatalError(
            f"AOTI artifact '{path}' was built with _GLIBCXX_USE_CXX11_ABI="
            f"{int(bool(meta.get('cxx11_abi')))}, this torch uses {int(abi)}: recompile with "
            f"neml2-compile under this torch"
        )
    if device is not None or dtype is not None:
        dev = torch.device(device if device is not None else "cpu").type
        dt = str(dtype).removeprefix("torch.") if dtype is not None else "float64"
        entries = {f"{lf['device']}/{lf['dtype']}": lf for lf in meta.get("leaves", [])}
        leaf = entries.get(f"{dev}/{dt}")
        if leaf is None or not (root / str(leaf.get("path", ""))).is_dir():
            raise FatalError(
                f"AOTI artifact '{root}' has no {dev}/{dt} leaf (available: "
                f"{', '.join(entries) or 'none'}): recompile with --device {dev} --dtype {dt}"
            )
        _check_digests(root / str(leaf["path"]), leaf.get("sha1"), path)
    return meta


def _check_digests(leaf: Path, digests: Any, meta: Path) -> None:
    """Every graph file named in the leaf's ``sha1`` map exists and has that content hash."""
    if not isinstance(digests, dict) or not digests:
        raise FatalError(
            f"AOTI artifact '{meta}' records no content hash (sha1) for the graphs of leaf "
            f"'{leaf}': recompile with neml2-compile"
        )
    for name, recorded in digests.items():
        graph = leaf / str(name)
        if not graph.is_file():
            raise FatalError(
                f"graph file '{graph}' listed in metadata.json is missing; the artifact is "
                f"incomplete, re-run neml2-compile"
            )
        actual = file_sha1(graph)
        if actual != recorded:
            raise FatalError(
                f"graph file '{graph}' has sha1 {actual}, metadata.json records {recorded}: the "
                f"file was changed or comes from another compile; recompile with neml2-compile"
            )
