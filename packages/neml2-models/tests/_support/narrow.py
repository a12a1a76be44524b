"""``narrow(obj, cls)``: an input-file object, checked (and typed) to be a ``cls``.

The factory's getters return the section's base type (``get_driver`` a ``Driver``, ``get_model``
a ``RouteModel``); a test that uses one type's own members narrows first.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def narrow(obj: object, cls: type[T]) -> T:
    """``obj``, asserted to be an instance of ``cls``."""
    assert isinstance(obj, cls), f"expected a {cls.__name__}, got a {type(obj).__name__}"
    return obj
