"""Shared pieces of the traction-separation leaves: Vec basis, indicators, option checks, the
separation inputs of the traction laws."""

from __future__ import annotations

from typing import Any

import torch

from neml2.schema import HitSchema, input
from neml2.tensors import Scalar, Vec, where

__all__ = ["SEPARATION_INPUTS", "basis", "check_distinct", "indicator", "split_penetration"]

SEPARATION_INPUTS = HitSchema(
    input("normal_separation", Scalar, "Normal separation delta_n"),
    input("normal_penetration", Scalar, "Normal penetration delta_pen (optional)", default=None),
    input("tangential_separation_1", Scalar, "First tangential separation delta_s1"),
    input("tangential_separation_2", Scalar, "Second tangential separation delta_s2"),
)
"""Inputs of the traction laws: normal, optional penetration and the two tangential separations."""


def basis(like: Any) -> tuple[Vec, Vec, Vec]:
    """Cartesian unit vectors :math:`e_0, e_1, e_2` with the dtype/device of ``like``."""
    eye = torch.eye(3, dtype=like.dtype, device=like.device)
    return Vec(eye[0]), Vec(eye[1]), Vec(eye[2])


def indicator(cond: Any, like: Any) -> Scalar:
    """1.0 where ``cond`` holds, else 0.0 (a Scalar with the dtype/device of ``like``)."""
    one = Scalar(torch.ones((), dtype=like.dtype, device=like.device))
    out: Scalar = where(cond, one, 0.0)
    return out


def split_penetration(model: Any, args: tuple[Any, ...], n_before: int, n_after: int) -> Any:
    """Split ``forward``'s positional args around the optional ``normal_penetration`` input.

    Returns ``(before, penetration_or_None, after, promoted)``.
    """
    has = model.normal_penetration is not None
    k = n_before + int(has)
    return (args[:n_before], args[n_before] if has else None, args[k : k + n_after],
            args[k + n_after :])  # fmt: skip


def check_distinct(model: Any, option: str, others: dict[str, Any]) -> None:
    """Reject a promoted parameter ``option`` reading the same variable as another option."""
    name = model.promoted_input(option)
    if name is None:
        return
    for other, var in others.items():
        if var is not None and var == name:
            raise ValueError(
                f"option '{option}': variable '{name}' is also the model's '{other}' variable; "
                f"'{option}' must name a separate variable"
            )
