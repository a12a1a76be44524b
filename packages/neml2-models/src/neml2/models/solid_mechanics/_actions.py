"""Small helpers for building chain-rule action tables in solid-mechanics leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["add_action", "add_action_2", "times"]


def add_action(actions: dict[str, Any], key: str | None, fn: Callable[[Any], Any]) -> None:
    """Add ``fn`` to ``actions[key]`` (summing with an existing action; ``key=None`` skips)."""
    if key is None:
        return
    prev = actions.get(key)
    actions[key] = fn if prev is None else (lambda d, p=prev: p(d) + fn(d))


def add_action_2(
    actions_2: dict[tuple[str, str], Any],
    a: str | None,
    b: str | None,
    fn: Callable[[Any, Any], Any],
) -> None:
    """Add the symmetric second-order term ``fn`` for the pair ``(a, b)`` (and ``(b, a)``).

    ``fn(da, db)`` must be symmetric in the roles of its two arguments' variables: for ``a != b``
    the transposed entry ``(b, a)`` gets ``lambda db, da: fn(da, db)``.
    """
    if a is None or b is None:
        return

    def put(key: tuple[str, str], f: Callable[[Any, Any], Any]) -> None:
        prev = actions_2.get(key)
        actions_2[key] = f if prev is None else (lambda x, y, p=prev: p(x, y) + f(x, y))

    put((a, b), fn)
    if a != b:
        put((b, a), lambda x, y: fn(y, x))


def times(c: Any) -> Callable[[Any], Any]:
    """Action ``d ↦ d * c`` (a tangent scaled by a fixed coefficient)."""
    return lambda d: d * c
