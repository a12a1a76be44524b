"""The Python side of the neml2 error taxonomy.

``ConvergenceError`` is ONE class across every route: when neml2-models is installed its
``neml2.solvers.ConvergenceError`` is adopted (so py-eager, py-jit and py-aoti raise the same
class), otherwise the standalone runtime uses :class:`neml2.aoti._local_errors.ConvergenceError`.
Both are ``RuntimeError`` subclasses. ``FatalError`` is raised for every non-recoverable error
of libneml2.so (bad input, shape/dtype/device mismatch, bad artifact).
"""

from __future__ import annotations

import importlib

from neml2.aoti import _local_errors


class FatalError(RuntimeError):
    """A non-recoverable neml2 runtime error (bad input, artifact, shape, dtype or device)."""


def _adopt_solvers_class() -> type[RuntimeError] | None:
    """``neml2.solvers.ConvergenceError`` when neml2-models is installed, else ``None``."""
    try:
        solvers = importlib.import_module("neml2.solvers")
    except ModuleNotFoundError as e:
        if e.name in {"neml2", "neml2.solvers"}:
            return None
        raise
    cls = getattr(solvers, "ConvergenceError", None)
    if cls is None and getattr(solvers, "__file__", None) is None:
        return None  # a bare namespace portion, not the neml2-models package
    if not (isinstance(cls, type) and issubclass(cls, RuntimeError)):
        raise ImportError(
            "neml2.solvers is installed but does not define ConvergenceError as a RuntimeError "
            f"subclass (found {cls!r}); neml2-aoti and neml2-models versions are inconsistent"
        )
    return cls


ConvergenceError: type[RuntimeError] = _adopt_solvers_class() or _local_errors.ConvergenceError
