"""py-jit: in-process ``torch.compile`` of neml2 models (``neml2.compile``)."""

from neml2.jit._compile import compile as compile
from neml2.jit._compile import compiled_graph as compiled_graph
from neml2.jit._compile import compiled_models as compiled_models
from neml2.jit._graph import CapturedGraph as CapturedGraph
from neml2.jit._graph import format_graph as format_graph

__all__ = ["CapturedGraph", "compile", "compiled_graph", "compiled_models", "format_graph"]
