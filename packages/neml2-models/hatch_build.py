"""Build hook: writes ``src/neml2/hash``, the git commit the distribution is built from.

NEML2 v3 exposes that file as ``neml2.hash_file``. From a git checkout the file holds
``git rev-parse HEAD``; from an unpacked sdist (no git) the file it carries is kept; with
neither it holds ``unknown``. The file is gitignored and shipped as a build artifact.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HASH_FILE = Path("src") / "neml2" / "hash"


def _git_commit(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


class SourceHashHook(BuildHookInterface):  # type: ignore[type-arg]
    """Writes the source hash file before hatch collects the package files."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        target = root / HASH_FILE
        commit = _git_commit(root)
        if commit is None and target.is_file():
            return
        text = f"{commit or 'unknown'}\n"
        if not target.is_file() or target.read_text() != text:
            tmp = target.with_name(".hash.tmp")
            tmp.write_text(text)
            tmp.replace(target)
