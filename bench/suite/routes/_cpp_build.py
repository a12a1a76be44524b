"""Build ``bench/cpp`` (the C++ route programs) once per run against the installed packages.

Configured with ``find_package(neml2)`` (and ``neml2_eager`` when installed) from the prefixes
the Python packages report (``neml2.aoti.cmake_prefix_path``, ``neml2.eager.cmake_prefix_path``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.suite import _proc
from bench.suite._target import Target

SOURCE = Path(__file__).resolve().parents[2] / "cpp"
TIMEOUT = 600.0
PREFIXES = """
import importlib
for name in ("neml2.aoti", "neml2.eager"):
    try:
        print(importlib.import_module(name).cmake_prefix_path)
    except (ImportError, AttributeError):
        pass
"""

_built: dict[Path, str | None] = {}  # build folder -> None (built) or why it failed


def build(target: Target, folder: Path) -> str | None:
    """Configure and build ``bench/cpp`` into ``folder``; None on success, else the reason."""
    if folder not in _built:
        _built[folder] = _build(target, folder)
    return _built[folder]


def _build(target: Target, folder: Path) -> str | None:
    cmake = shutil.which("cmake", path=str(Path(target.python).parent)) or shutil.which("cmake")
    if cmake is None:
        return "cmake is not installed"
    env = _proc.thread_env(2)
    found = _proc.run([target.python, "-c", PREFIXES], env, 60.0).stdout.split()
    configure = [cmake, "-S", str(SOURCE), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release"]
    configure += [f"-DCMAKE_PREFIX_PATH={';'.join(found)}", f"-DPython3_EXECUTABLE={target.python}"]
    for cmd in (configure, [cmake, "--build", str(folder)]):
        res = _proc.run(cmd, env, TIMEOUT)
        if res.returncode != 0:
            lines = [ln for ln in (res.stdout + res.stderr).splitlines() if "rror" in ln]
            return (
                f"building bench/cpp failed: {lines[0].strip()[:160] if lines else res.failure()}"
            )
    return None
