"""``Driver``: base of the ``[Drivers]`` types, plus the value-token resolution they share.

Drivers are built from HIT through their :class:`~neml2.schema.HitSchema` like models are;
``dependency`` options (``model``, ``driver``) are resolved through the factory. Value tokens of
``<kind>_<T>_values`` options name ``[Tensors]`` blocks; for ``Scalar`` a number is accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from neml2.schema import HitSchema
from neml2.tensors import MRP, R2, SR2, SSR4, WR2, MillerIndex, Scalar, TensorWrapper, Vec

__all__ = ["TENSOR_TYPES", "Driver", "pair_options", "resolve_value"]

#: tensor types drivers accept, by catalog name (order = option order in the catalog)
TENSOR_TYPES: dict[str, Any] = {
    "Scalar": Scalar,
    "Vec": Vec,
    "SR2": SR2,
    "WR2": WR2,
    "R2": R2,
    "MRP": MRP,
    "SSR4": SSR4,
    "MillerIndex": MillerIndex,
}


class Driver:
    """Base class of drivers: ``run()`` does the work and returns ``True`` on success."""

    SECTION: ClassVar[str] = "Drivers"
    hit: ClassVar[HitSchema] = HitSchema()

    def __init__(self, *, factory: Any = None, name: str | None = None) -> None:
        self.factory = factory
        self._hit_name = name

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Build from a HIT block (unknown options were rejected by the factory)."""
        from neml2.factory import kwargs_from_hit

        return cls(**kwargs_from_hit(cls, node, factory), factory=factory, name=node.name)

    def run(self) -> bool:
        """Execute the driver."""
        raise NotImplementedError(f"{type(self).__name__} does not implement run()")

    def _dependency(self, value: Any, getter: str) -> Any:
        """A block name resolved through ``factory.<getter>``; objects pass through."""
        if not isinstance(value, str):
            return value
        if self.factory is None:
            raise ValueError(f"cannot resolve '{value}' without an input file")
        return getattr(self.factory, getter)(value)

    def _convert(self, t: torch.Tensor) -> torch.Tensor:
        f = self.factory
        if f is None or (f.device is None and f.dtype is None):
            return t
        return t.to(device=f.device, dtype=f.dtype)


def resolve_value(token: Any, cls: Any, factory: Any, what: str) -> Any:
    """The ``cls`` value of a token: a ``[Tensors]`` name, a number (Scalar only) or a value."""
    if isinstance(token, TensorWrapper):
        if type(token) is not cls:
            raise ValueError(f"{what}: expected a {cls.__name__}, got a {type(token).__name__}")
        return token
    if isinstance(token, torch.Tensor):
        return cls(token)
    if isinstance(token, (int, float)) and cls is Scalar:
        return _scalar(float(token), factory)
    text = str(token).strip()
    if factory is not None and text and factory.has_tensor(text):
        value = factory.get_tensor(text)
        if isinstance(value, torch.Tensor):
            return cls(value if value.is_floating_point() else value.to(torch.float64))
        if type(value) is not cls:
            raise ValueError(
                f"{what}: [Tensors/{text}] is a {type(value).__name__}, expected a {cls.__name__}"
            )
        return value
    if cls is Scalar:
        try:
            return _scalar(float(text), factory)
        except ValueError:
            pass
    hint = "" if cls is not Scalar else " or a number"
    raise ValueError(f"{what}: '{text}' is not a [Tensors] block{hint}")


def _scalar(x: float, factory: Any) -> Scalar:
    dtype = getattr(factory, "dtype", None) or torch.float64
    device = getattr(factory, "device", None)
    return Scalar(torch.tensor(x, dtype=dtype, device=device))


def pair_options(
    prefix: str, values: Mapping[str, Any], factory: Any, types: Sequence[str]
) -> list[tuple[str, str, Any]]:
    """``(name, T, value)`` for every ``<prefix><T>_names``/``<prefix><T>_values`` pair.

    Raises when the two lists differ in length or a name repeats.
    """
    out: list[tuple[str, str, Any]] = []
    seen: dict[str, str] = {}
    for tname in types:
        nkey, vkey = f"{prefix}{tname}_names", f"{prefix}{tname}_values"
        names = _tokens(values.get(nkey, ()))
        vals = _tokens(values.get(vkey, ()))
        if len(names) != len(vals):
            raise ValueError(
                f"options '{nkey}' and '{vkey}' have different lengths "
                f"({len(names)} names, {len(vals)} values)"
            )
        for n, v in zip(names, vals, strict=True):
            n = str(n)
            if n in seen:
                raise ValueError(f"option '{nkey}': variable '{n}' is already given in '{seen[n]}'")
            seen[n] = nkey
            value = resolve_value(v, TENSOR_TYPES[tname], factory, f"option '{vkey}'")
            out.append((n, tname, value))
    return out


def _tokens(value: Any) -> list[Any]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]
