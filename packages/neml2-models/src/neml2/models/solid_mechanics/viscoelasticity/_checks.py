"""Validation of constant (non-promoted) material parameters shared by the rheological models."""

from __future__ import annotations

from typing import Any

__all__ = ["check_sign"]


def check_sign(model: Any, names: tuple[str, ...], *, allow_zero: bool = False) -> None:
    """Raise ``ValueError`` naming the option if a constant parameter is not positive.

    Promoted parameters (model outputs / input variables) are only known at run time and are not
    checked. ``allow_zero`` accepts zero (e.g. an optional penalty stiffness).
    """
    for name in names:
        if model.promoted_input(name) is not None:
            continue
        data = model._get_param(name).data.detach()
        bad = (data < 0) if allow_zero else (data <= 0)
        if bool(bad.any()):
            what = "non-negative" if allow_zero else "positive"
            vals = data.flatten()[:6].tolist()
            raise ValueError(f"option '{name}': must be {what}, got {vals}")
