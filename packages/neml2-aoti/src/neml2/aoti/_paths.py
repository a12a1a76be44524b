"""Locations of the C++ pieces of neml2-aoti, for build systems of C++ hosts."""

from __future__ import annotations

from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent

cmake_prefix_path: str = str(_ROOT)
"""Add to ``CMAKE_PREFIX_PATH`` so ``find_package(neml2 CONFIG)`` finds ``neml2::aoti``."""

include_dir: str = str(_ROOT / "include")
"""Directory holding the public headers (``neml2/csrc/aoti/*.h``)."""

library_dir: str = str(_ROOT / "lib")
"""Directory holding ``libneml2.so``."""
