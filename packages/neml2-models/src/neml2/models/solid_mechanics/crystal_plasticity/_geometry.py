"""The ``crystal_geometry`` option of the crystal-plasticity models and the buffers it yields."""

from __future__ import annotations

from typing import Any

from neml2.data.crystal_geometry import CrystalGeometry
from neml2.schema import SchemaField, dependency

__all__ = [
    "check_same_sub_batch",
    "check_slip_axis",
    "crystal_geometry_option",
    "geometry_of",
    "slip_output",
    "store_slip_tensor",
]


def crystal_geometry_option() -> SchemaField:
    """``crystal_geometry``: the ``[Data]`` block with the slip systems."""
    return dependency(
        "crystal_geometry",
        "get_data",
        "The [Data] crystal geometry (slip systems)",
        default="crystal_geometry",
    )


def geometry_of(model: Any) -> CrystalGeometry:
    """The model's crystal geometry (a :class:`CrystalGeometry`, else a clear error)."""
    geom = model.crystal_geometry
    if not isinstance(geom, CrystalGeometry):
        raise ValueError(
            f"option 'crystal_geometry': expected the name of a [Data] crystal geometry block "
            f"(e.g. type = CubicCrystal) or a CrystalGeometry, got {geom!r}"
        )
    return geom


def store_slip_tensor(model: Any, name: str, which: str) -> None:
    """Register the per-system tensor ``which`` ∈ {A, M, W} of the geometry as buffer ``name``.

    Non-persistent: it is derived from the geometry, not state (it still follows ``Model.to``).
    """
    value = getattr(geometry_of(model), which)()
    model.register_typed_buffer(name, value, persistent=False)


def check_slip_axis(model: Any, option: str, x: Any, nslip: int) -> None:
    """Refuse input ``option`` unless its last sub-batch axis holds the ``nslip`` systems."""
    shape = tuple(x.sub_batch_shape)
    if shape and shape[-1] == nslip:
        return
    var = model._var_renames.get(option, option)
    raise ValueError(
        f"{type(model).__name__} '{model._hit_name}': input '{option}' (variable '{var}') has "
        f"sub-batch shape {shape}; its last sub-batch axis must be the {nslip} slip systems of "
        f"the crystal geometry"
    )


def check_same_sub_batch(model: Any, named: dict[str, Any]) -> None:
    """Refuse inputs whose (non-empty) sub-batch shapes differ; the message names them."""
    shapes = {k: tuple(x.sub_batch_shape) for k, x in named.items() if x.sub_batch_ndim}
    if len(set(shapes.values())) > 1:
        listed = ", ".join(f"'{k}' {s}" for k, s in shapes.items())
        raise ValueError(
            f"{type(model).__name__} '{model._hit_name}': inputs have different sub-batch "
            f"shapes ({listed}); per-slip-system inputs must share one slip axis"
        )


def slip_output(model: Any, option: str, shape: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """``{variable of output option: shape}`` for :meth:`Model.output_sub_batch`."""
    return {model._var_renames.get(option, option): shape}
