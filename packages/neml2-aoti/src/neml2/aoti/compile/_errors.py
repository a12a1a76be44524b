"""``CompileError``: a user error of ``neml2-compile`` (bad flag, name, file), one line."""

from __future__ import annotations

__all__ = ["CompileError"]


class CompileError(ValueError):
    """A bad compile request; the message names the flag, parameter, variable or file."""
