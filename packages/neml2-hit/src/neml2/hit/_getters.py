"""Typed field getters of :class:`~neml2.hit.Section` (``get_int``, ``get_float_list2d``, ...).

Each ``get_X(key, default=MISSING)`` returns the field read as X; a missing field returns
``default`` or, without one, raises ``HitError "[block] no parameter 'key'"`` at the block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

from neml2.hit._error import HitError
from neml2.hit._syntax import block_label

if TYPE_CHECKING:
    from neml2.hit._nodes import Field

__all__ = ["MISSING", "Getters"]

_D = TypeVar("_D")


class _Missing:
    """Sentinel type: no default given."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Getters:
    """Mixin: typed getters on top of ``field(name)``."""

    if TYPE_CHECKING:

        def field(self, name: str) -> Field | None: ...

        def error(
            self, reason: str, line: int | None = None, col: int | None = None
        ) -> HitError: ...

        @property
        def path(self) -> str: ...

    def require(self, key: str) -> Field:
        """The field ``key``; HitError ``no parameter 'key'`` at this block if absent."""
        f = self.field(key)
        if f is None:
            raise self.error(f"{block_label(self.path)} no parameter '{key}'")
        return f

    def _get(self, key: str, default: Any, method: str, *args: Any) -> Any:
        f = self.field(key)
        if f is None and default is not MISSING:
            return default
        return getattr(self.require(key), method)(*args)

    @overload
    def get_str(self, key: str) -> str: ...
    @overload
    def get_str(self, key: str, default: _D) -> str | _D: ...
    def get_str(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a string."""
        return self._get(key, default, "as_str")

    @overload
    def get_int(self, key: str) -> int: ...
    @overload
    def get_int(self, key: str, default: _D) -> int | _D: ...
    def get_int(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as an integer."""
        return self._get(key, default, "as_int")

    @overload
    def get_float(self, key: str) -> float: ...
    @overload
    def get_float(self, key: str, default: _D) -> float | _D: ...
    def get_float(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a float."""
        return self._get(key, default, "as_float")

    @overload
    def get_bool(self, key: str) -> bool: ...
    @overload
    def get_bool(self, key: str, default: _D) -> bool | _D: ...
    def get_bool(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a boolean (``true``/``false``)."""
        return self._get(key, default, "as_bool")

    @overload
    def get_str_list(self, key: str) -> list[str]: ...
    @overload
    def get_str_list(self, key: str, default: _D) -> list[str] | _D: ...
    def get_str_list(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a whitespace-separated list of strings."""
        return self._get(key, default, "as_list", str)

    @overload
    def get_int_list(self, key: str) -> list[int]: ...
    @overload
    def get_int_list(self, key: str, default: _D) -> list[int] | _D: ...
    def get_int_list(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a list of integers."""
        return self._get(key, default, "as_list", int)

    @overload
    def get_float_list(self, key: str) -> list[float]: ...
    @overload
    def get_float_list(self, key: str, default: _D) -> list[float] | _D: ...
    def get_float_list(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a list of floats."""
        return self._get(key, default, "as_list", float)

    @overload
    def get_bool_list(self, key: str) -> list[bool]: ...
    @overload
    def get_bool_list(self, key: str, default: _D) -> list[bool] | _D: ...
    def get_bool_list(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as a list of booleans."""
        return self._get(key, default, "as_list", bool)

    @overload
    def get_str_list2d(self, key: str) -> list[list[str]]: ...
    @overload
    def get_str_list2d(self, key: str, default: _D) -> list[list[str]] | _D: ...
    def get_str_list2d(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as ``;``-separated rows of strings."""
        return self._get(key, default, "as_list2d", str)

    @overload
    def get_int_list2d(self, key: str) -> list[list[int]]: ...
    @overload
    def get_int_list2d(self, key: str, default: _D) -> list[list[int]] | _D: ...
    def get_int_list2d(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as ``;``-separated rows of integers."""
        return self._get(key, default, "as_list2d", int)

    @overload
    def get_float_list2d(self, key: str) -> list[list[float]]: ...
    @overload
    def get_float_list2d(self, key: str, default: _D) -> list[list[float]] | _D: ...
    def get_float_list2d(self, key: str, default: Any = MISSING) -> Any:
        """Field ``key`` as ``;``-separated rows of floats."""
        return self._get(key, default, "as_list2d", float)
