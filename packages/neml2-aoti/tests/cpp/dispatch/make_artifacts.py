"""ctest fixture of the dispatcher tests: the scenario artifacts they load, under ``<out>/<s>/``.

Usage: ``python make_artifacts.py <out> <scenario>...``. A scenario already compiled under
``$NEML2_TEST_ARTIFACTS/<s>/`` (the shared test folder) is linked, otherwise it is compiled with
:data:`neml2.aoti.compile.testing.SCENARIOS`' options (through the neml2-compile cache, so a
rebuild on the same machine takes seconds).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from neml2.aoti.compile.testing import SCENARIOS, build_scenarios


def _ready(folder: Path) -> bool:
    return (folder / "model" / "metadata.json").is_file() and (
        folder / "model" / "cpu" / "float64"
    ).is_dir()


def main(out: Path, scenarios: list[str]) -> None:
    """Link or compile every scenario into ``out``."""
    shared = os.environ.get("NEML2_TEST_ARTIFACTS")
    out.mkdir(parents=True, exist_ok=True)
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            sys.exit(f"make_artifacts: unknown scenario '{scenario}' (known: {sorted(SCENARIOS)})")
        target = out / scenario
        if _ready(target):
            continue
        if shared and _ready(Path(shared) / scenario):
            if target.is_symlink():
                target.unlink()
            target.symlink_to(Path(shared) / scenario, target_is_directory=True)
            continue
        build_scenarios(out, dtypes=("float64",), names=[scenario], quiet=True)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: make_artifacts.py <out> <scenario>...")
    main(Path(sys.argv[1]), sys.argv[2:])
