"""Human-readable model summary (what ``print(model)`` shows).

Format (variables sorted by name, types in brackets)::

    Name: eq
    Input: a [Scalar]
    a~1 [Scalar]
    Output: a_rate [Scalar]
"""

from __future__ import annotations

from typing import Any

__all__ = ["summary"]


def _block(title: str, spec: dict[str, Any]) -> list[str]:
    names = sorted(spec)
    if not names:
        return [f"{title}: (none)"]
    lines = [f"{n} [{spec[n].__name__}]" for n in names]
    lines[0] = f"{title}: {lines[0]}"
    return lines


def summary(model: Any) -> str:
    """``Name:``/``Input:``/``Output:`` summary of a model."""
    name = getattr(model, "_hit_name", None) or type(model).__name__
    lines = [f"Name: {name}"]
    lines += _block("Input", model.input_spec)
    lines += _block("Output", model.output_spec)
    return "\n".join(lines)
