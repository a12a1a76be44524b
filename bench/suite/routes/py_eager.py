"""py-eager: ``neml2.load_model`` and typed ``call_by_name`` / ``jacobian``."""

from __future__ import annotations

from bench.suite.routes._route import Route


class PyEager(Route):
    name = "py-eager"
