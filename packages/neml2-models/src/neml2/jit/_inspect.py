"""``neml2-inspect --graph``: compile a model, run it once on sample inputs, return its graphs."""

from __future__ import annotations

from typing import Any

import torch

from neml2.jit._compile import compile, compiled_graph, compiled_models

__all__ = ["sample_graphs"]


def _dtype(model: Any) -> torch.dtype:
    for t in (*model.parameters(), *model.buffers()):
        if t.is_floating_point():
            dtype: torch.dtype = t.dtype
            return dtype
    return torch.float64


def sample_graphs(model: Any, *, optimized: bool = True, seed: int = 0) -> str:
    """Optimized (or traced) graph text of every JIT-compiled part of ``model``.

    ``model`` is compiled in place (:func:`neml2.compile`); each compiled model (``model``
    itself, or its JIT-able sub-models when it contains an ``ImplicitUpdate``) is evaluated
    once on a batch of one sample point: values in [1, 2), old values (``x~1``) in [0, 0.5).
    """
    compile(model)
    gen = torch.Generator().manual_seed(seed)
    parts = []
    for m in compiled_models(model):
        dtype = _dtype(m)
        inputs = {}
        for name, cls in m.input_spec.items():
            x = torch.rand(1, *cls.BASE_SHAPE, generator=gen, dtype=torch.float64)
            inputs[name] = (0.5 * x if name.endswith("~1") else 1.0 + x).to(dtype)
        m.value(inputs)
        try:
            text = compiled_graph(m, optimized=optimized)
        except RuntimeError:  # Dynamo found no tensor operation (e.g. a pass-through model)
            text = "graph():  # no tensor operations\n"
        parts.append(f"# {type(m).__name__} '{m._hit_name}'\n{text}")
    return "\n".join(parts)
