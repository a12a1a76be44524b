"""Locations of libneml2_eager.so, its headers and CMake package."""

from __future__ import annotations

from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent

cmake_prefix_path: str = str(_ROOT)
"""Add to ``CMAKE_PREFIX_PATH`` so ``find_package(neml2_eager CONFIG)`` finds ``neml2::eager``."""

include_dir: str = str(_ROOT / "include")
"""Directory holding the public headers (``neml2/csrc/eager/*.h``)."""

library_dir: str = str(_ROOT / "lib")
"""Directory holding ``libneml2_eager.so``."""
