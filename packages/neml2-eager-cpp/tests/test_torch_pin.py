"""``import neml2.eager`` refuses a torch release other than the one its build recorded."""

from __future__ import annotations

import subprocess
import sys

import torch

IMPORT_WITH_OTHER_PIN = """
import importlib.metadata, sys
real = importlib.metadata.requires
importlib.metadata.requires = lambda d: ["torch==1.0.*"] if d == "neml2-eager-cpp" else real(d)
try:
    import neml2.eager
except ImportError as e:
    print(e)
else:
    sys.exit("import neml2.eager passed")
"""


def test_import_refuses_another_release() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_WITH_OTHER_PIN], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"neml2-eager-cpp was built against torch 1.0 but torch {torch.__version__} is "
        f"installed: install torch==1.0.* or a neml2-eager-cpp built against torch "
        f"{torch.__version__}\n"
    )


def test_import_with_the_build_release() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import neml2.eager"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
