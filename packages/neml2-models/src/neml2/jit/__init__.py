"""py-jit: in-process ``torch.compile`` of neml2 models (``neml2.compile``).

Also the opt-in TorchScript tracing of ``Model.value`` (:func:`set_tracing`, ``NEML2_JIT_TRACE``).
"""

from neml2.jit._compile import (
    compile as compile,
    compiled_graph as compiled_graph,
    compiled_models as compiled_models,
)
from neml2.jit._graph import CapturedGraph as CapturedGraph, format_graph as format_graph
from neml2.jit._trace import (
    set_tracing as set_tracing,
    tracing as tracing,
    tracing_enabled as tracing_enabled,
)

__all__ = [
    "CapturedGraph",
    "compile",
    "compiled_graph",
    "compiled_models",
    "format_graph",
    "set_tracing",
    "tracing",
    "tracing_enabled",
]
