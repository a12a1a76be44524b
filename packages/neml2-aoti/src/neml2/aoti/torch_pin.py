"""The torch release a compiled distribution was built against, checked at import.

neml2-aoti and neml2-eager-cpp are compiled against one torch; their wheels require
``torch==<major>.<minor>.*`` of it (written by their build hook). :func:`check_torch` refuses a
torch of another major.minor with one line naming both. A distribution without that requirement
(an install whose metadata predates it, or none at all) is not checked. ``neml2.aoti`` imports
this module first: importing it checks neml2-aoti, before the extension module loads.
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, requires

__all__ = ["built_torch", "check_torch", "torch_mismatch"]

_PIN = re.compile(r"^torch\s*==\s*(\d+\.\d+)\.\*\s*(;.*)?$")
_RELEASE = re.compile(r"^(\d+)\.(\d+)")


def built_torch(distribution: str) -> str | None:
    """``X.Y`` of the ``torch==X.Y.*`` requirement of an installed distribution, else None."""
    try:
        reqs = requires(distribution) or []
    except PackageNotFoundError:
        return None
    pins = (_PIN.match(r.strip()) for r in reqs)
    return next((m.group(1) for m in pins if m), None)


def torch_mismatch(distribution: str, built: str | None, installed: str) -> str | None:
    """The error line when torch ``installed`` is not of the ``built`` major.minor, else None."""
    release = _RELEASE.match(installed)
    if built is None or (release is not None and f"{release[1]}.{release[2]}" == built):
        return None
    return (
        f"{distribution} was built against torch {built} but torch {installed} is installed: "
        f"install torch=={built}.* or a {distribution} built against torch {installed}"
    )


def check_torch(distribution: str) -> None:
    """Raise ImportError (one line) when the running torch is not the one ``distribution`` was
    built against."""
    import torch

    message = torch_mismatch(distribution, built_torch(distribution), torch.__version__)
    if message is not None:
        raise ImportError(message)


check_torch("neml2-aoti")
