"""``neml2.aoti.compile``: the export pipeline behind ``neml2-compile`` (the ``[compile]`` extra).

:func:`compile_model` compiles a model of an input file into an AOTInductor artifact (layout and
metadata: ``ARTIFACT.md``); :func:`export_model_for_aoti` is NEML2 v3's call form of it;
:func:`read_metadata` loads and validates an artifact's metadata: the C++ loader's own checks,
through the :mod:`neml2.aoti._aoti` binding. ``read_metadata`` needs only torch and the runtime;
the compilers need neml2-models and are imported on first access.
"""

from typing import Any as _Any

from neml2.aoti.compile._errors import CompileError as CompileError
from neml2.aoti.compile._metadata import (
    FORMAT as FORMAT,
    SCHEMA_VERSION as SCHEMA_VERSION,
    read_metadata as read_metadata,
)

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "CompileError",
    "compile_model",
    "export_model_for_aoti",
    "read_metadata",
]


def __getattr__(name: str) -> _Any:
    if name == "compile_model":
        from neml2.aoti.compile._pipeline import compile_model

        return compile_model
    if name == "export_model_for_aoti":
        from neml2.aoti.compile._export import export_model_for_aoti

        return export_model_for_aoti
    raise AttributeError(f"module 'neml2.aoti.compile' has no attribute '{name}'")
