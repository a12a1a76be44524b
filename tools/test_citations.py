"""Source files cite only documents inside the repository.

The design notes that code relies on live in ``docs/design/`` (and the user guide in
``docs/guide/``); a comment or docstring cites them by path, e.g. ``docs/design/runtime.md``,
"Substepping". Planning documents kept outside the repository (bare ``aoti.md``, ``tensors.md``,
``framework.md``, ``design.md``, ``catalog.md``, ``style.md``, ``parameter_storage.json``, paths
under ``shared/spec``) and planning labels (``seed 002``, ``seed "Title"``) are not available to
a reader of the code, so citing them is refused here, with ``file:line`` for each occurrence.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()

# Sources, tests, benchmarks, examples and tools; not the generated header copies (ignored by
# git, but present in a working tree).
SCOPE = re.compile(r"^(?:packages/[^/]+/(?:src|csrc|tests)/|bench/|examples/|tools/)")
GENERATED = re.compile(r"^packages/[^/]+/src/neml2/include/")

EXTERNAL = re.compile(
    # a planning document by bare name; `docs/design/tensors.md` (a path) is fine
    r"(?<![\w./-])(?:design|framework|aoti|tensors|catalog|style)\.md\b"
    r"|\bparameter_storage\.json\b"
    r"|\bshared/(?:spec|bench)\b"
    # planning labels: `seed 002`, `seed "Eager evaluation from C++"`
    r"|\bseeds?\b ?(?:\d{3}\b|\")",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Citation:
    """One line citing a document outside the repository."""

    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def in_scope(path: str) -> bool:
    """Whether the repository-relative ``path`` is checked."""
    return bool(SCOPE.match(path)) and not GENERATED.match(path) and path != SELF


def repository_files(root: Path) -> list[str]:
    """Tracked files and untracked, not ignored ones, relative to ``root``."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not available")
    done = subprocess.run(
        [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    return sorted({p for p in done.stdout.decode().split("\0") if p})


def find_citations(root: Path, paths: Iterable[str]) -> list[Citation]:
    """Every line of the in-scope text files among ``paths`` that cites an external document."""
    found: list[Citation] = []
    for rel in paths:
        file = root / rel
        if not in_scope(rel) or not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary data
        for number, line in enumerate(text.splitlines(), start=1):
            if EXTERNAL.search(line):
                found.append(Citation(rel, number, line.strip()))
    return found


def test_repository_cites_only_in_repository_documents() -> None:
    found = find_citations(ROOT, repository_files(ROOT))
    assert not found, (
        "cite the in-repository notes (docs/design/, docs/guide/) instead of documents outside "
        "the repository, or describe the behaviour in words:\n" + "\n".join(map(str, found))
    )


@pytest.mark.parametrize(
    "line",
    [
        '// Adaptive substepping of an implicit segment (aoti.md §3.3 "Substepping").',
        '"""Seed (K) axis machinery for forward-mode tangents (tensors.md §10)."""',
        "# see `design.md`, section 4",
        "//   framework.md §7.1",
        "values of parameter_storage.json",
        "# copied from shared/spec/catalog.md",
        "// the Python face of neml2::aoti::Model (seed 002).",
        "// mirrors Seed 004's C++ tutorial",
        '// CPython interpreter (seed "Eager evaluation from C++").',
    ],
)
def test_external_citations_are_flagged(line: str) -> None:
    assert EXTERNAL.search(line), line


@pytest.mark.parametrize(
    "line",
    [
        '// Adaptive substepping of an implicit segment (docs/design/runtime.md, "Substepping").',
        '"""Conventions: ``docs/design/tensors.md``, "Seed axes"."""',
        "result keys (docs/guide/drivers.md, Results)",
        "the cpp-aoti page docs/cpp/aoti.md",
        'CATALOG = json.loads((DATA / "catalog.json").read_text())',
        "packages/neml2-models/tests/data/catalog.json",
        "graph semantics: ARTIFACT.md §3.1",
        "def _rows(batch: int, *base: int, seed: int = 0) -> torch.Tensor:",
        "torch.manual_seed(2026)",
        "const std::string seed004 = NEML2_EAGER_TEST_INPUTS;",
        "# the identity seed of a tangent has K = 6 seeds",
    ],
)
def test_in_repository_references_pass(line: str) -> None:
    assert not EXTERNAL.search(line), line


def test_scanner_reports_made_up_violations(tmp_path: Path) -> None:
    files = {
        "packages/demo/csrc/solve.cpp": "int x;\n// Newton loop (aoti.md §3.3).\n",
        "packages/demo/src/neml2/demo/mod.py": '"""Rules: see docs/design/tensors.md."""\n',
        "packages/demo/tests/test_mod.py": "\n\n# values from seed 004\n",
        "bench/run.py": "# docs/guide/performance.md\n",
        "examples/note.i": "# shared/spec/framework.md §7\n",
        # out of scope: documentation pages and generated header copies
        "docs/notes.md": "aoti.md\n",
        "packages/demo/src/neml2/include/copy.h": "// aoti.md\n",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "packages/demo/tests/blob.pt").write_bytes(b"\xff\xfe aoti.md \x00")
    found = find_citations(tmp_path, [*files, "packages/demo/tests/blob.pt", "bench/missing.py"])
    assert [f"{c.path}:{c.line}" for c in found] == [
        "packages/demo/csrc/solve.cpp:2",
        "packages/demo/tests/test_mod.py:3",
        "examples/note.i:1",
    ]
    assert str(found[0]) == "packages/demo/csrc/solve.cpp:2: // Newton loop (aoti.md §3.3)."


def test_scope() -> None:
    assert in_scope("packages/neml2-aoti/csrc/aoti/substep.cpp")
    assert in_scope("packages/neml2-tensors/tests/test_regions.py")
    assert in_scope("bench/suite/worker.py")
    assert in_scope("tools/layering.py")
    assert not in_scope("packages/neml2-aoti/src/neml2/include/neml2/csrc/aoti/Model.h")
    assert not in_scope("docs/design/runtime.md")
    assert not in_scope("packages/neml2-aoti/ARTIFACT.md")
    assert not in_scope(SELF)
