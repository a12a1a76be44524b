"""tools/layering.py on small made-up trees, and on this repository."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import layering

BASE = {
    "lib/src/neml2/lib/__init__.py": "",
    "lib/src/neml2/lib/_impl.py": (
        "class Thing:\n    def __init__(self):\n        self._cache = {}\n        self.size = 1\n"
    ),
    "lib/src/neml2/lib/api.py": "from neml2.lib._impl import Thing\n",
}


def _tree(tmp_path: Path, user: str) -> list[str]:
    files = {**BASE, "app/src/neml2/app/__init__.py": "", "app/src/neml2/app/main.py": user}
    for name, text in files.items():
        path = tmp_path / "packages" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return [f"{f.file.name}:{f.line}: {f.text}" for f in layering.check(tmp_path)]


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        ("import neml2.lib._impl\n", "imports lib's private module neml2.lib._impl"),
        ("from neml2.lib._impl import Thing\n", "from lib's private module neml2.lib._impl"),
        ("from neml2.lib import _impl\n", "imports lib's private name neml2.lib._impl"),
        (
            "import importlib\nm = importlib.import_module('neml2.lib._impl')\n",
            "names lib's private module 'neml2.lib._impl'",
        ),
        ("def f(t):\n    return t._cache\n", "private attribute ._cache"),
        ("def f(t):\n    t._cache = None\n", "private attribute ._cache"),
        ("def f(t):\n    return getattr(t, '_cache', None)\n", "private attribute '_cache'"),
    ],
)
def test_reports_each_kind_of_use(tmp_path: Path, user: str, expected: str) -> None:
    found = _tree(tmp_path, user)
    assert len(found) == 1, found
    assert found[0].startswith("main.py:")
    assert expected in found[0]


@pytest.mark.parametrize(
    "user",
    [
        "from neml2.lib.api import Thing\n",  # a public module re-exporting a private one
        "import neml2.lib\nfrom neml2.app import _local\n",  # its own private names
        "def f(t):\n    return t.size\n",
        "class Mine:\n    def __init__(self):\n        self._cache = 1\n\n"
        "    def g(self, other):\n        return other._cache\n",  # a name it uses itself
        "from neml2.lib.__about__ import __version__\n",  # dunder modules are public
        "text = 'neml2.lib.api'\n",
    ],
)
def test_accepts_public_use(tmp_path: Path, user: str) -> None:
    assert _tree(tmp_path, user) == []


def test_repository_distributions_use_each_other_publicly() -> None:
    root = Path(__file__).resolve().parents[1]
    found = layering.check(root)
    assert [str(f) for f in found] == []
