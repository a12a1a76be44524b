"""``neml2-compile`` without the ``[compile]`` extra: one line naming it, exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from neml2.aoti import _extras

MESSAGE = 'neml2-compile: needs the compile extra: pip install "neml2-aoti[compile]"'

# A runtime-only install, simulated: ``neml2`` is a namespace holding neml2.aoti's folder only
# (argv[1]) and neml2-models' modules cannot be imported.
RUNTIME_ONLY = """
import sys, types
neml2 = types.ModuleType("neml2")
neml2.__path__ = [sys.argv.pop(1)]
sys.modules["neml2"] = neml2
for name in ("neml2.models", "neml2.hit", "neml2.outputs"):
    sys.modules[name] = None
from neml2.aoti._extras import neml2_compile
sys.exit(neml2_compile(sys.argv[1:]))
"""
NAMESPACE = str(Path(_extras.__file__).resolve().parents[1])


def test_installed_extra_passes() -> None:
    assert _extras.missing_module("compile") is None
    assert _extras.check_extra("neml2-compile", "compile") == 0


@pytest.mark.parametrize("module", ["neml2.models", "neml2.hit", "numpy"])
def test_missing_module_is_named(
    module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    assert _extras.check_extra("neml2-compile", "compile") == _extras.EXIT_MISSING_EXTRA == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"{MESSAGE} (missing module {module})\n"


@pytest.mark.parametrize("args", [["--help"], ["in.i", "--model", "m"]])
def test_script_without_extra_prints_one_line(args: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUNTIME_ONLY, NAMESPACE, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == f"{MESSAGE} (missing module neml2.models)\n"
    assert not list(tmp_path.iterdir())


def test_script_with_extra_runs_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _extras.neml2_compile(["--help"])
    assert exc.value.code == 0
    assert "usage: neml2-compile" in capsys.readouterr().out
