r"""The compile cache, at two levels.

**Requests.** An unchanged request (same input text after overrides, same options, torch and
neml2 versions, a hash of all neml2 sources, device, dtype) reuses the graphs of a previous
compile: entry ``<key>/`` holds the leaf's ``.pt2`` files and ``entry.json`` (the metadata
fragments); nothing is exported or lowered. A request with promoted parameters is stored under
its value-free key too (:mod:`._value_free`), which a request differing only in their values
hits the same way.

**Graphs.** Lowering (Inductor and the C++ compiler) is most of a compile, so every lowered
graph is also kept under ``graphs/<key>.pt2``, keyed by what lowering reads
(:func:`graph_key`): the exported program's printed graph (ops, shapes, dtypes, signature,
symbolic ranges), the values of the constants it uses, the Inductor options, the device, CPU
features and versions. Another model that exports the same graph (or a request whose promoted
parameters have no value-free key) is exported again (seconds) but lowers nothing.

Location: ``$NEML2_COMPILE_CACHE``, else ``~/.cache/neml2/compile``. Entries are written to a
temp name and renamed into place; an exclusive file lock per key (``filelock``, a torch
dependency) makes concurrent compiles of the same request or graph (pytest-xdist workers,
several hosts on a shared folder) do the work once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import torch
from filelock import FileLock

__all__ = [
    "Lower",
    "cache_dir",
    "cache_key",
    "cached_graphs",
    "entry_lock",
    "graph_key",
    "load_entry",
    "program_fingerprint",
    "store_entry",
]

_ENTRY = "entry.json"

#: ``lower(names)`` writes the lowered graphs ``names`` into the folder the caller chose
Lower = Callable[[list[str]], None]


def cache_dir() -> Path:
    """``$NEML2_COMPILE_CACHE`` or ``~/.cache/neml2/compile``."""
    env = os.environ.get("NEML2_COMPILE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "neml2" / "compile"


@functools.cache
def _code_fingerprint(lowering_only: bool = False) -> str:
    """Hash of installed neml2 Python sources: all of ``neml2.*`` (tensors, models, this
    compiler, ...), or with ``lowering_only`` those of ``neml2.aoti`` alone.

    Requests are traced from all of that code, so a change anywhere in it (not only a version
    bump) must never reuse stale graphs. A lowered graph depends only on its exported program,
    which the graph key holds, and on the lowering code of ``neml2.aoti``: an edit of a model
    that leaves its graph unchanged reuses the lowered graph. Computed once per process (a few
    ms).
    """
    import neml2
    import neml2.aoti

    paths = neml2.aoti.__path__ if lowering_only else neml2.__path__
    h = hashlib.sha256()
    for root in sorted({str(Path(p).resolve()) for p in paths}):
        for f in sorted(Path(root).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _key(fields: Mapping[str, Any], lowering_only: bool = False) -> str:
    """Hash of ``fields`` with the torch and neml2 versions and the code fingerprint."""
    from importlib.metadata import PackageNotFoundError, version

    def ver(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "none"

    blob = json.dumps(
        {
            **fields,
            "torch": torch.__version__,
            "abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
            "neml2-aoti": ver("neml2-aoti"),
            "neml2-models": ver("neml2-models"),
            "code": _code_fingerprint(lowering_only),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def cache_key(text: str, options: Mapping[str, Any]) -> str:
    """Key of a request: input text after overrides, options, versions and compiler code."""
    return _key({"text": text, "options": dict(options)})


#: the provenance comments of a printed program (source file and line of each node's code):
#: they change with any edit of the traced code, never the graph
_PROVENANCE = re.compile(r"^[ \t]*# (File: |No stacktrace found).*$", re.MULTILINE)


def program_fingerprint(program: torch.export.ExportedProgram) -> str:
    """Hash of what lowering ``program`` reads: its printed form (graph with shapes and dtypes,
    signature, symbolic ranges; not the provenance comments) and the values of the lifted
    constants that the graph uses.

    A lifted constant no node uses (a promoted parameter's stored value, replaced by a graph
    input) is left out: its value cannot change the lowered code.
    """
    h = hashlib.sha256(_PROVENANCE.sub("", str(program)).encode())
    sig = program.graph_signature
    lifted = {
        **sig.inputs_to_parameters,
        **sig.inputs_to_buffers,
        **sig.inputs_to_lifted_tensor_constants,
    }
    values: dict[str, Any] = {**program.state_dict, **program.constants}
    for node in program.graph.nodes:
        if node.op != "placeholder" or node.name not in lifted or not node.users:
            continue
        value = values[lifted[node.name]]
        h.update(node.name.encode())
        if isinstance(value, torch.Tensor):
            flat = value.detach().to("cpu").contiguous().reshape(-1)
            h.update(f"{value.dtype}{tuple(value.shape)}".encode())
            h.update(flat.view(torch.uint8).numpy().tobytes())
        else:  # a script object: its repr is all that can be read
            h.update(repr(value).encode())
    return h.hexdigest()


def graph_key(
    program: torch.export.ExportedProgram, configs: Mapping[str, Any], target: Mapping[str, Any]
) -> str:
    """Key of one lowered graph: :func:`program_fingerprint`, the Inductor options ``configs``
    and ``target`` (device, CPU features), with versions and the lowering code (``neml2.aoti``)."""
    fields = {"program": program_fingerprint(program), "configs": dict(configs), **dict(target)}
    return _key(fields, lowering_only=True)


def cached_graphs(keys: Mapping[str, str], folder: Path, lower: Lower) -> list[str]:
    """Write ``folder/<name>`` for every ``name -> graph key`` of ``keys``: a copy of the cached
    graph where there is one, else by ``lower(names)`` (which writes those files into ``folder``),
    then cached. Holds the keys' locks throughout, so a graph is lowered once however many
    processes ask for it. Returns the names that were lowered."""
    root = cache_dir() / "graphs"
    root.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as locks:
        for key in sorted(set(keys.values())):  # one global order: no deadlock between callers
            locks.enter_context(FileLock(root / f"{key}.lock"))
        missing = []
        for name, key in keys.items():
            cached = root / f"{key}.pt2"
            if cached.is_file():
                shutil.copy2(cached, folder / name)
            else:
                missing.append(name)
        if missing:
            lower(missing)
        for name in missing:
            fd, tmp = tempfile.mkstemp(prefix=f".{keys[name]}-", dir=root)
            os.close(fd)
            try:
                shutil.copy2(folder / name, tmp)
                os.replace(tmp, root / f"{keys[name]}.pt2")
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    return missing


@contextlib.contextmanager
def entry_lock(key: str) -> Iterator[None]:
    """Exclusive inter-process lock of one cache key (blocks while another process holds it)."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(root / f"{key}.lock"):
        yield


def load_entry(key: str) -> tuple[Path, dict[str, Any]] | None:
    """``(folder with the .pt2 files, entry data)`` of a complete entry, else ``None``."""
    d = cache_dir() / key
    try:
        data = json.loads((d / _ENTRY).read_text())
    except (OSError, ValueError):
        return None
    if not all((d / f).is_file() for f in data.get("files", [])):
        return None
    return d, data


def store_entry(key: str, files: list[Path], data: dict[str, Any]) -> None:
    """Store ``files`` and ``data`` (``data['files']`` is set to their names) under ``key``."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    try:
        for f in files:
            shutil.copy2(f, tmp / f.name)
        (tmp / _ENTRY).write_text(json.dumps({**data, "files": [f.name for f in files]}))
        final = root / key
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
