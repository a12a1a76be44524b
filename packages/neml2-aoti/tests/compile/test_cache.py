"""The compile cache: keys, complete entries only, and an inter-process lock per key."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from neml2.aoti.compile import _cache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder for this test (``$NEML2_COMPILE_CACHE``)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("NEML2_COMPILE_CACHE", str(root))
    return root


def test_key_depends_on_text_and_options() -> None:
    key = _cache.cache_key("[Models]\n", {"dtype": "float64"})
    assert key == _cache.cache_key("[Models]\n", {"dtype": "float64"})
    assert key != _cache.cache_key("[Models] \n", {"dtype": "float64"})
    assert key != _cache.cache_key("[Models]\n", {"dtype": "float32"})


def test_store_then_load_and_incomplete_entries(cache: Path, tmp_path: Path) -> None:
    graph = tmp_path / "forward.pt2"
    graph.write_bytes(b"graph")
    assert _cache.load_entry("k") is None
    _cache.store_entry("k", [graph], {"metadata": {"a": 1}})
    folder, data = _cache.load_entry("k") or (None, {})
    assert folder == cache / "k" and data == {"metadata": {"a": 1}, "files": ["forward.pt2"]}
    assert (folder / "forward.pt2").read_bytes() == b"graph"
    (folder / "forward.pt2").unlink()  # an entry missing one of its files is not an entry
    assert _cache.load_entry("k") is None
    assert not list(cache.glob(".k-*")), "the temp folder of a store is renamed into place"


def _locker(cache: Path, key: str) -> subprocess.Popen[str]:
    """A process that imports the cache, prints ``ready``, then holds ``entry_lock(key)``
    long enough to print ``acquired``."""
    code = textwrap.dedent(f"""
        from neml2.aoti.compile._cache import entry_lock
        print("ready", flush=True)
        with entry_lock({key!r}):
            print("acquired", flush=True)
    """)
    env = {**os.environ, "NEML2_COMPILE_CACHE": str(cache)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _finish(proc: subprocess.Popen[str]) -> str:
    """What ``proc`` printed after ``ready``, once it exits (status 0)."""
    assert proc.wait(timeout=60) == 0 and proc.stdout is not None
    return proc.stdout.read().strip()  # not communicate(): it skips what readline buffered


def test_lock_excludes_other_processes_until_released(cache: Path) -> None:
    with _cache.entry_lock("k"):
        other_key = _locker(cache, "other")
        assert _finish(other_key) == "acquired", "keys lock independently"
        same_key = _locker(cache, "k")
        time.sleep(1.0)  # ample for an unlocked acquire (the import is already done)
        assert same_key.poll() is None, "a second process got a held lock"
    assert _finish(same_key) == "acquired", "the waiting process gets the released lock"
