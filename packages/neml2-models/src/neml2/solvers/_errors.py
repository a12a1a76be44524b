"""The recoverable solve error, return codes and the solve result record."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field

import torch

CAPTURE_ENV_VAR = "NEML2_CAPTURE_SOLVE_FAILURE"
_FALSY = frozenset({"", "0", "false", "no", "off"})


class RetCode(enum.IntEnum):
    """Outcome of a nonlinear solve."""

    SUCCESS = 0
    MAXITER = 1
    FAILURE = 2


@dataclass
class NonlinearResult:
    """Outcome of a successful solve: return code, Newton updates taken, collected log lines."""

    ret: RetCode
    iterations: int
    log: list[str] = field(default_factory=list)


class ConvergenceError(RuntimeError):
    """A recoverable solve failure (divergence or iteration cap); the host may cut its step.

    When :func:`capture_solve_failure` is on, ``converged_mask`` (``(*B,)`` bool) and
    ``unknowns`` (the iterate of a masked re-solve) are attached; otherwise both are None.
    """

    def __init__(
        self,
        message: str,
        *,
        ret: RetCode = RetCode.MAXITER,
        converged_mask: torch.Tensor | None = None,
        unknowns: object | None = None,
    ) -> None:
        super().__init__(message)
        self.ret = ret
        self.converged_mask = converged_mask
        self.unknowns = unknowns


def is_truthy(value: str | None) -> bool:
    """Truthiness of an environment flag: anything but unset, '', 0, false, no, off.

    The comparison ignores case and surrounding whitespace.
    """
    return value is not None and value.strip().lower() not in _FALSY


def capture_solve_failure() -> bool:
    """Whether ``NEML2_CAPTURE_SOLVE_FAILURE`` asks failed solves to attach mask/unknowns."""
    return is_truthy(os.environ.get(CAPTURE_ENV_VAR))
