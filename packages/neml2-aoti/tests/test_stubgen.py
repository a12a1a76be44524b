"""``neml2-stub``: NEML2 v3's stub generator for the bindings, through pybind11-stubgen.

The generated stub must declare what the module really has, and the ``_aoti.pyi`` the package
ships must be exactly what the command generates from the built bindings (``nox -s stubs``
rewrites it; ``nox -s typecheck`` runs mypy's stubtest on it).
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from neml2.aoti import _aoti, stubgen

SHIPPED = Path(_aoti.__file__).with_name("_aoti.pyi")


def _declared(stub: Path) -> set[str]:
    """Top-level classes, functions and assigned names of a stub file."""
    names: set[str] = set()
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names.update(a.asname or a.name for a in node.names)
    return names


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neml2.aoti.stubgen", *args], capture_output=True, text=True
    )


needs_stubgen = pytest.mark.skipif(
    importlib.util.find_spec("pybind11_stubgen") is None,
    reason="pybind11-stubgen is not installed (constraints/dev.txt pins it)",
)


@needs_stubgen
def test_generates_the_module_stub(tmp_path: Path) -> None:
    done = _run("-o", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"generating stubs for neml2.aoti._aoti -> {tmp_path}" in done.stdout
    stub = tmp_path / "neml2" / "aoti" / "_aoti.pyi"
    generated = _declared(stub)
    public = {n for n in vars(_aoti) if not n.startswith("_")}
    assert public <= generated, sorted(public - generated)
    assert {"Model", "batched_dense_solve", "sum_of_products", "simd_path"} <= generated


@needs_stubgen
def test_shipped_stub_is_the_generated_one(tmp_path: Path) -> None:
    assert _run("-o", str(tmp_path)).returncode == 0
    generated = (tmp_path / "neml2" / "aoti" / "_aoti.pyi").read_text()
    assert generated.startswith(stubgen.HEADER)
    assert SHIPPED.read_text() == generated, (
        "the shipped _aoti.pyi is not the stub of these bindings: run `nox -s stubs`"
    )


@needs_stubgen
def test_signatures_are_typed(tmp_path: Path) -> None:
    """The bindings name what they accept and return (csrc/python/stub_types.h): no ``Any``
    except ``__exit__``'s ``*args``, no bare ``dict``."""
    text = SHIPPED.read_text()
    assert "def forward(self, inputs: collections.abc.Mapping[str, torch.Tensor], " in text
    assert "-> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]" in text
    assert "path: str | os.PathLike[str], device: torch.device | str | None = None" in text
    assert "def __init__(self, workspace: Workspace | None = None)" in text
    loose = [
        line.strip()
        for line in text.splitlines()
        if ("typing.Any" in line and "*args" not in line) or "-> dict:" in line
        or "dict," in line.replace("dict[", "")
    ]  # fmt: skip
    assert not loose, loose


def test_normalize_declares_convergence_error_where_neml2_aoti_does() -> None:
    raw = "from __future__ import annotations\nfrom neml2.solvers._errors import ConvergenceError\n"
    shipped = stubgen.normalize(raw)
    assert shipped.startswith(stubgen.HEADER)
    assert "from neml2.aoti._errors import ConvergenceError" in shipped
    assert "neml2.solvers" not in shipped
    assert stubgen.normalize(shipped) == shipped


@needs_stubgen
def test_stubgen_failure_is_reported_with_its_exit_status(tmp_path: Path) -> None:
    done = _run("-o", str(tmp_path), "--no-such-option")
    assert done.returncode != 0
    assert "neml2-stub: pybind11-stubgen failed for neml2.aoti._aoti" in done.stderr


def test_default_output_is_next_to_the_installed_module() -> None:
    root = stubgen.default_output_root()
    assert (root / "neml2" / "aoti" / Path(_aoti.__file__).name).is_file()


def test_missing_stubgen_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "pybind11_stubgen" else real(name)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert stubgen.main(["-o", "unused"]) == 1
    err = capsys.readouterr().err
    assert "pybind11-stubgen is not installed: pip install pybind11-stubgen" in err
