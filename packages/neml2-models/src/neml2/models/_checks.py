"""Construction-time checks of option and parameter values, with messages naming the option.

The factory prefixes the block (``[Models/<name>]``), so a message reads
``[Models/m] option 'diffusivity': must be non-negative, got [-1.0]``. A parameter promoted to a
variable is not checked here: its values are only known when the model is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

__all__ = [
    "check_list_lengths",
    "check_literal",
    "check_option_value",
    "positive_and_finite",
    "require_positive",
]


def check_literal(
    model: Any,
    name: str,
    ok: Callable[[torch.Tensor], torch.Tensor],
    rule: str,
    *,
    option: str | None = None,
) -> None:
    """Raise ``ValueError`` naming ``option`` (default ``name``) when the literal value of
    parameter ``name`` breaks ``rule``: ``ok`` maps the stored tensor to a bool tensor, and every
    entry must be true and finite."""
    if model.promoted_input(name) is not None:
        return
    x = model._get_param(name).data.detach()
    if not bool((ok(x) & torch.isfinite(x)).all()):
        raise ValueError(f"option '{option or name}': {rule}, got {x.tolist()}")


def check_option_value(name: str, value: float, ok: Callable[[float], bool], rule: str) -> None:
    """Raise ``ValueError`` naming option ``name`` unless the plain number ``value`` is finite
    and satisfies ``ok``."""
    if value != value or value in (float("inf"), float("-inf")) or not ok(value):
        raise ValueError(f"option '{name}': {rule}, got {value}")


def check_list_lengths(what: str, n: int, **lists: Sequence[Any]) -> None:
    """Refuse an empty variable list ``what`` (``n`` entries) and list options (keyword name →
    entries) whose length is not ``n``."""
    if n == 0:
        raise ValueError(f"option '{what}': at least one variable is required")
    for key, names in lists.items():
        if len(names) != n:
            raise ValueError(
                f"option '{key}': expected {n} entries (one per '{what}' variable), "
                f"got {len(names)}"
            )


def positive_and_finite(x: torch.Tensor | float) -> bool:
    """Every entry of ``x`` is > 0 and finite (NaN and inf fail): the rule for moduli, rates
    and other literal coefficients that must be positive."""
    t = torch.as_tensor(x)
    return bool(((t > 0) & torch.isfinite(t)).all())


def require_positive(model: Any, *names: str) -> None:
    """:func:`check_literal` with the rule "must be positive and finite" for each parameter."""
    for name in names:
        check_literal(model, name, lambda t: t > 0, "must be positive and finite")
