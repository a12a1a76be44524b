"""Build hook: the wheel requires the torch release it is built against.

The C++ library and the bindings are compiled against the installed torch, whose C++ ABI changes
between minor releases: the wheel's metadata gains ``torch==<major>.<minor>.*`` of that torch
(next to the ``torch>=2.10`` of ``pyproject.toml``), which ``import neml2.aoti`` also checks.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from packaging.version import Version


def torch_pin() -> str:
    """``torch==X.Y.*`` of the torch installed in the build environment."""
    v = Version(version("torch"))
    return f"torch=={v.major}.{v.minor}.*"


class TorchPinHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the build torch's ``torch==X.Y.*`` to the wheel's requirements."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        build_data["dependencies"].append(torch_pin())
