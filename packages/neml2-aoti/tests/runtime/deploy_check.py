"""Second half of ``nox -s deploy``: run in a venv holding only torch and the neml2-aoti wheel.

``python deploy_check.py OUT/reference.pt`` proves the runtime stands alone: neml2-models,
neml2-hit and neml2-tensors are not importable, ``ConvergenceError`` is the runtime's own class,
and every prebuilt artifact reproduces py-eager's outputs and Jacobian blocks (recorded by
``deploy_reference.py``) to 1e-10 relative, Newton loop included. Only torch and neml2.aoti
are imported here.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import torch

from neml2.aoti import ConvergenceError, FatalError, Model, _local_errors

ABSENT = ("neml2.models", "neml2.hit", "neml2.tensors", "neml2.solvers")


def _close(got: torch.Tensor, ref: torch.Tensor, what: str) -> None:
    atol = 1e-12 + 1e-10 * float(ref.abs().max())
    torch.testing.assert_close(got.expand(ref.shape), ref, rtol=1e-10, atol=atol, msg=what)


def check_isolation() -> None:
    """The sibling distributions are absent and the fallback error classes are in use."""
    for name in ABSENT:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        sys.exit(f"{name} is importable in the runtime-only environment")
    assert issubclass(ConvergenceError, RuntimeError) and issubclass(FatalError, RuntimeError)
    assert ConvergenceError is _local_errors.ConvergenceError, ConvergenceError


def check_scenario(name: str, ref: dict[str, object]) -> None:
    """forward and jacobian of one artifact against the recorded py-eager values."""
    m = Model(str(ref["artifact"]))
    x, expected, J_ref = ref["inputs"], ref["outputs"], ref["jacobian"]
    assert isinstance(x, dict) and isinstance(expected, dict) and isinstance(J_ref, dict)
    got = m.forward(x)
    assert list(got) == m.output_names
    for n, v in got.items():
        _close(v, expected[n], f"{name}: {n}")
    values, J = m.jacobian(x)
    assert J, f"{name}: no Jacobian blocks"
    for o, row in J.items():
        _close(values[o], expected[o], f"{name}: jacobian value {o}")
        for i, block in row.items():
            if i in J_ref.get(o, {}):
                _close(block, J_ref[o][i], f"{name}: d{o}/d{i}")
            else:
                assert not block.any(), f"{name}: d{o}/d{i} should be zero"
    print(f"  {name}: forward + jacobian match py-eager ({len(got)} outputs)")


def check_convergence_error(ref: dict[str, object]) -> None:
    """An impossible tolerance raises the (recoverable) ConvergenceError."""
    m = Model(str(ref["artifact"]))
    m.set_solver_config(atol=0.0, rtol=0.0, miters=2)
    x = ref["inputs"]
    assert isinstance(x, dict)
    try:
        m.forward(x)
    except ConvergenceError as e:
        print(f"  ConvergenceError as expected: {e}")
        return
    sys.exit("an impossible tolerance did not raise ConvergenceError")


def main(reference: Path) -> None:
    check_isolation()
    refs = torch.load(reference)
    for name, ref in refs.items():
        check_scenario(name, ref)
    check_convergence_error(refs["scalar_implicit"])
    print(f"runtime-only neml2-aoti OK (torch {torch.__version__}, {len(refs)} artifacts)")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
