"""Write the regression gold files of the J2 examples — only after the verification passes.

    .venv/bin/python packages/neml2-models/tests/examples/_gold.py

Runs ``tests/verification`` first (pytest, float64); on success runs every example's ``driver``
in float64 and saves its output history (``output.<k>.<var>`` keys except ``REDUNDANT`` ones; the
``TransientRegression`` block named ``regression`` compares them) to its ``reference`` file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import torch
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_input

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = sorted((ROOT / "examples" / "plasticity").glob("*.i")) + sorted(
    (ROOT / "examples" / "viscoplasticity").glob("*.i")
)
VERIFICATION = ROOT / "packages" / "neml2-models" / "tests" / "verification"
# outputs that only repeat recorded components of others (mixed control: mixed_state holds the
# unknown components of stress and strain), left out to keep the gold files small
REDUNDANT = {"mixed_state"}


def reference(path: Path) -> Path:
    """The gold file named by the example's ``[Drivers/regression]`` block."""
    m = re.search(r"reference\s*=\s*'([^']+)'", path.read_text())
    if m is None:
        raise ValueError(f"{path}: no 'reference' in [Drivers/regression]")
    return path.parent / m.group(1)


def write(path: Path) -> Path:
    """Run the example's driver and save its outputs as the gold file."""
    driver = narrow(load_input(path, dtype=torch.float64).get_driver("driver"), TransientDriver)
    driver.run()
    gold = {
        k: v.detach().cpu()
        for k, v in driver.result().items()
        if k.startswith("output.") and k.split(".", 2)[2] not in REDUNDANT
    }
    out = reference(path)
    out.parent.mkdir(exist_ok=True)
    torch.save(gold, out)
    return out


def main() -> int:
    if pytest.main([str(VERIFICATION), "-q", "-p", "no:cacheprovider"]) != 0:
        print("verification failed: gold files not written", file=sys.stderr)
        return 1
    for path in EXAMPLES:
        out = write(path)
        print(f"{out.relative_to(ROOT)}: {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
