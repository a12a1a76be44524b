"""The torch release recorded at build time (``torch==X.Y.*``) is checked at import."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import PackageNotFoundError

import pytest
import torch

from neml2.aoti import torch_pin

EXPECTED = (
    "neml2-aoti was built against torch 2.13 but torch 2.14.1 is installed: "
    "install torch==2.13.* or a neml2-aoti built against torch 2.14.1"
)


@pytest.mark.parametrize("installed", ["2.13.0", "2.13.1+cpu", "2.13.0a0+git1234", "2.13"])
def test_same_release_passes(installed: str) -> None:
    assert torch_pin.torch_mismatch("neml2-aoti", "2.13", installed) is None


@pytest.mark.parametrize("installed", ["2.14.1", "2.1.3", "2.130.0", "3.13.0", "nightly"])
def test_other_release_is_named(installed: str) -> None:
    message = torch_pin.torch_mismatch("neml2-aoti", "2.13", installed)
    assert message == EXPECTED.replace("2.14.1", installed)


def test_unrecorded_release_is_not_checked() -> None:
    assert torch_pin.torch_mismatch("neml2-aoti", None, "9.9.9") is None


@pytest.mark.parametrize(
    ("requirements", "built"),
    [
        (["torch>=2.10", "torch==2.13.*"], "2.13"),
        (["torch==2.13.* ; platform_system == 'Linux'", "numpy>=1.24; extra == 'compile'"], "2.13"),
        (["torch>=2.10", "torch==2.13.0"], None),
        ([], None),
        (None, None),
    ],
)
def test_built_torch_reads_the_pin(
    requirements: list[str] | None, built: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch_pin, "requires", lambda name: requirements)
    assert torch_pin.built_torch("neml2-aoti") == built


def test_built_torch_of_an_absent_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(name: str) -> list[str]:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(torch_pin, "requires", absent)
    assert torch_pin.built_torch("neml2-aoti") is None


def test_installed_build_matches_running_torch() -> None:
    built = torch_pin.built_torch("neml2-aoti")
    assert built is None or torch.__version__.startswith(f"{built}.")
    torch_pin.check_torch("neml2-aoti")


def test_check_raises_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_pin, "requires", lambda name: ["torch==2.13.*"])
    monkeypatch.setattr(torch, "__version__", "2.14.1")
    with pytest.raises(ImportError) as exc:
        torch_pin.check_torch("neml2-aoti")
    assert str(exc.value) == EXPECTED


# ``import neml2.aoti`` with a fake metadata pin of another release: the error comes before the
# extension module is loaded.
IMPORT_WITH_OTHER_PIN = """
import importlib.metadata, sys
real = importlib.metadata.requires
importlib.metadata.requires = lambda d: ["torch==1.0.*"] if d == "neml2-aoti" else real(d)
try:
    import neml2.aoti
except ImportError as e:
    assert "neml2.aoti._aoti" not in sys.modules
    print(e)
else:
    sys.exit("import neml2.aoti passed")
"""


def test_import_refuses_another_release() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_WITH_OTHER_PIN], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"neml2-aoti was built against torch 1.0 but torch {torch.__version__} is installed: "
        f"install torch==1.0.* or a neml2-aoti built against torch {torch.__version__}\n"
    )
