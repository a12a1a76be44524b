r"""The compile cache: an unchanged request (same input text after overrides, same options,
torch and neml2 versions, a hash of all neml2 sources, device, dtype) reuses the graphs of a
previous compile.

Location: ``$NEML2_COMPILE_CACHE``, else ``~/.cache/neml2/compile``. An entry
``<key>/`` holds the leaf's ``.pt2`` files and ``entry.json`` (the metadata fragments). Entries
are written to a temp folder and renamed into place; an exclusive ``fcntl`` lock per key makes
concurrent compiles of the same request (pytest-xdist workers) compile once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import torch

__all__ = ["cache_dir", "cache_key", "entry_lock", "load_entry", "store_entry"]

_ENTRY = "entry.json"


def cache_dir() -> Path:
    """``$NEML2_COMPILE_CACHE`` or ``~/.cache/neml2/compile``."""
    env = os.environ.get("NEML2_COMPILE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "neml2" / "compile"


@functools.cache
def _code_fingerprint() -> str:
    """Hash of every installed ``neml2.*`` Python source (tensors, models, this compiler, ...).

    The graphs are traced from that code, so a change anywhere in it (not only a version bump)
    must never reuse stale graphs. Computed once per process (a few ms).
    """
    import neml2

    h = hashlib.sha256()
    for root in sorted({str(Path(p).resolve()) for p in neml2.__path__}):
        for f in sorted(Path(root).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def cache_key(text: str, options: Mapping[str, Any]) -> str:
    """Key of a request: input text after overrides, options, versions and compiler code."""
    from importlib.metadata import PackageNotFoundError, version

    def ver(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "none"

    blob = json.dumps(
        {
            "text": text,
            "options": dict(options),
            "torch": torch.__version__,
            "abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
            "neml2-aoti": ver("neml2-aoti"),
            "neml2-models": ver("neml2-models"),
            "code": _code_fingerprint(),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


@contextlib.contextmanager
def entry_lock(key: str) -> Iterator[None]:
    """Exclusive lock of one cache key (blocks while another process compiles it)."""
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{key}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


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
