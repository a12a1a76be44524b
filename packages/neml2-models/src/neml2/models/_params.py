"""Resolution of parameter / buffer specs (the four modes of ``declare_typed_parameter``).

1. literal: wrapper, tensor, number, or a string of floats (float64; one value → 0-d, several →
   1-D, then ``T(tensor)``);
2. ``[Tensors]`` reference: ``factory.has_tensor(spec)``;
3. another model's output (``'model'`` or ``'model.var'``), promotion enabled;
4. a bare variable name, promotion enabled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from neml2.tensors import TensorWrapper

__all__ = ["NLParam", "PromotedParam", "parse_literal", "resolve_constant", "resolve_provider"]


@dataclass(frozen=True)
class NLParam:
    """A parameter promoted to a runtime input (modes 3 and 4).

    ``input_name`` is the input added to ``input_spec``; ``tail_index`` its slot in the
    ``*promoted`` pack of ``forward``; for mode 3 ``provider``/``provider_output`` name the model
    (and its output) that a :class:`~neml2.models.composed.ComposedModel` pulls in.
    """

    input_name: str
    tail_index: int
    provider: Any = None
    provider_output: str | None = None


PromotedParam = NLParam


def parse_literal(spec: str) -> torch.Tensor | None:
    """Whitespace-separated floats → float64 tensor (0-d for one value), else ``None``."""
    tokens = spec.split()
    if not tokens:
        return None
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        return None
    if len(values) == 1:
        return torch.tensor(values[0], dtype=torch.float64)
    return torch.tensor(values, dtype=torch.float64)


def _wrap_value(value: Any, cls: Any, what: str) -> Any:
    if isinstance(value, TensorWrapper):
        if type(value) is not cls:
            raise TypeError(f"{what}: expected a {cls.__name__}, got a {type(value).__name__}")
        return value
    if isinstance(value, torch.Tensor):
        if not value.is_floating_point():
            value = value.to(torch.float64)
        return cls(value)
    if isinstance(value, (int, float)):
        return cls(torch.tensor(float(value), dtype=torch.float64))
    raise TypeError(f"{what}: cannot use a {type(value).__name__} as a {cls.__name__}")


def _on_factory_options(value: Any, factory: Any) -> Any:
    """``value`` moved to the factory's device/dtype (``load_input(..., device=, dtype=)``).

    Constants are created on the requested device and dtype right away, so a model's
    construction-time arithmetic never mixes a float64 literal with a converted ``[Tensors]`` value.
    """
    device = getattr(factory, "device", None)
    dtype = getattr(factory, "dtype", None)
    data = value.data
    if (device is None and dtype is None) or not data.is_floating_point():
        return value
    return value._like(data.to(device=device, dtype=dtype))


def resolve_constant(spec: Any, cls: Any, factory: Any, what: str) -> Any | None:
    """Modes 1–2: the typed value of ``spec``, or ``None`` if it is a string naming neither."""
    value = _resolve_constant(spec, cls, factory, what)
    return None if value is None else _on_factory_options(value, factory)


def _resolve_constant(spec: Any, cls: Any, factory: Any, what: str) -> Any | None:
    if not isinstance(spec, str):
        return _wrap_value(spec, cls, what)
    lit = parse_literal(spec)
    if lit is not None:
        base = tuple(cls.BASE_SHAPE)
        if len(base) > 1 and lit.dim() == 1 and lit.numel() == math.prod(base):
            lit = lit.reshape(base)
        try:
            return cls(lit)
        except ValueError as e:
            raise ValueError(f"{what}: literal '{spec}' is not a valid {cls.__name__}: {e}") from e
    name = spec.strip()
    if factory is not None and name and factory.has_tensor(name):
        value = factory.get_tensor(name)
        if isinstance(value, torch.Tensor) and not value.is_floating_point():
            value = value.to(torch.float64)
        return _wrap_value(value, cls, f"{what} ([Tensors/{name}])")
    return None


def resolve_provider(spec: str, factory: Any, what: str) -> tuple[Any, str] | None:
    """Mode 3: ``'model'`` or ``'model.var'`` naming a ``[Models]`` block → (model, output)."""
    if factory is None:
        return None
    mname, _, var = spec.strip().partition(".")
    if not mname or not factory.has_model(mname):
        return None
    provider = factory.get_model(mname)
    outs = list(provider.output_spec)
    if var:
        if var not in outs:
            raise ValueError(f"{what}: model '{mname}' has no output '{var}' (outputs: {outs})")
        return provider, var
    if len(outs) != 1:
        raise ValueError(
            f"{what}: model '{mname}' has {len(outs)} outputs {outs}; "
            f"write '{mname}.<output>' to pick one"
        )
    return provider, outs[0]
