"""The variables at a model's runtime boundary: the one definition every route shares.

:func:`boundary_variables` lists a model's inputs (in ``forward`` call order, i.e. the order of
``input_spec``; promoted parameters are not variables and are excluded) and outputs (order of
``output_spec``), each as a :class:`VarInfo` carrying the wrapper type name (``Scalar``, ``SR2``,
``R2``, ...), its base shape and its sub-batch shape. The AOTI metadata, the eager C++ route and
the ``AOTIModel`` shim all read names, types and shapes from here, so they cannot drift.

Sub-batch shapes: a variable has none unless declared. Declarations come from ``settings`` (the
input file's ``[Settings]``: ``example_batch_shape = '(dyn; sub)'`` or a per-variable entry; a lag
``x~n`` uses ``x``'s) or, for the variables of a root ``ImplicitUpdate``'s equation system, from
the system's own ``[Settings]`` record (``declared_sub``); an output no declaration covers takes
the sub-batch the model itself gives it (``Model.output_sub_batch``, e.g. a crystal model's slip
systems). An explicit ``sub_batch`` mapping overrides all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["VarInfo", "boundary_variables"]


@dataclass(frozen=True)
class VarInfo:
    """One boundary variable: name, wrapper type name, base shape and sub-batch shape."""

    name: str
    var_type: str
    base_shape: tuple[int, ...]
    sub_batch_shape: tuple[int, ...]

    @property
    def var_size(self) -> int:
        """Number of base components, :math:`\\prod` ``base_shape`` (1 for a ``Scalar``)."""
        n = 1
        for d in self.base_shape:
            n *= d
        return n


def _declared(model: Any) -> dict[str, tuple[int, ...]]:
    system = getattr(model, "system", None)
    declared = getattr(system, "declared_sub", None)
    return dict(declared) if isinstance(declared, Mapping) else {}


def _info(
    name: str,
    cls: Any,
    settings: Any,
    declared: Mapping[str, tuple[int, ...]],
    sub_batch: Mapping[str, tuple[int, ...]],
    intrinsic: Mapping[str, tuple[int, ...]] | None = None,
) -> VarInfo:
    base = getattr(cls, "BASE_SHAPE", None)
    if base is None:
        raise TypeError(
            f"boundary variable '{name}': type {cls!r} is not a neml2 tensor wrapper (no "
            f"BASE_SHAPE)"
        )
    if name in sub_batch:
        sub: tuple[int, ...] | None = tuple(sub_batch[name])
    else:
        sub = declared.get(name)
        if sub is None and settings is not None:
            s = settings.sub_batch_shape(name)
            sub = None if s is None else tuple(s)
        if sub is None and intrinsic is not None:
            sub = intrinsic.get(name)
    return VarInfo(name, cls.__name__, tuple(int(d) for d in base), tuple(sub or ()))


def boundary_variables(
    model: Any,
    settings: Any = None,
    *,
    sub_batch: Mapping[str, tuple[int, ...]] | None = None,
) -> tuple[list[VarInfo], list[VarInfo]]:
    """``(inputs, outputs)`` of ``model`` at its runtime boundary.

    ``model``: a :class:`~neml2.models.model.Model` (its ``input_spec``/``output_spec`` give names,
    order and types). ``settings``: optional :class:`~neml2.settings.Settings` (e.g.
    ``neml2.load_input(path).settings``) for sub-batch declarations. ``sub_batch``: optional
    ``{name: sub-batch shape}`` overriding every declaration.
    """
    in_spec = getattr(model, "input_spec", None)
    out_spec = getattr(model, "output_spec", None)
    if not isinstance(in_spec, Mapping) or not isinstance(out_spec, Mapping):
        raise TypeError(
            f"boundary_variables: expected a neml2 Model (with input_spec/output_spec), got "
            f"{type(model).__name__}"
        )
    declared = _declared(model)
    overrides = dict(sub_batch or {})
    inputs = [_info(n, t, settings, declared, overrides) for n, t in in_spec.items()]
    own = model.output_sub_batch() if hasattr(model, "output_sub_batch") else {}
    outputs = [_info(n, t, settings, declared, overrides, own) for n, t in out_spec.items()]
    return inputs, outputs
