"""Axis layouts: ordered groups of variables that make up an assembled vector.

A variable has a base shape and a sub-batch shape; its value is a raw tensor
``(*B, *sub, *base)``. A group stores several variables in one tensor:

* ``dense``: sub-batch folded into the flat axis, group tensor ``(*B, n)`` with
  ``n = Σ_v prod(sub_v)·prod(base_v)``;
* ``block``: all variables share the group's sub-batch, which stays as batch
  axes, group tensor ``(*B, *sub, n)`` with ``n = Σ_v prod(base_v)``.

The flat ordering of a whole layout (Krylov solvers, ``to_dense``) concatenates
the groups; a block group is flattened site-major (index ``s·n + k``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import torch

Structure = Literal["dense", "block"]
STRUCTURES: tuple[Structure, ...] = ("dense", "block")


@dataclass(frozen=True)
class VariableInfo:
    """One variable of a layout: its name, base shape and sub-batch shape."""

    name: str
    base_shape: tuple[int, ...] = ()
    sub_batch_shape: tuple[int, ...] = ()

    @property
    def base_size(self) -> int:
        """``prod(base_shape)``."""
        return math.prod(self.base_shape)

    @property
    def sub_size(self) -> int:
        """``prod(sub_batch_shape)``."""
        return math.prod(self.sub_batch_shape)

    @property
    def value_shape(self) -> tuple[int, ...]:
        """Trailing shape of the variable's raw value, ``(*sub, *base)``."""
        return self.sub_batch_shape + self.base_shape


@dataclass(frozen=True)
class AxisGroup:
    """An ordered group of variables stored in one tensor (``dense`` or ``block``)."""

    variables: tuple[VariableInfo, ...]
    structure: Structure = "dense"
    sub_batch_shape: tuple[int, ...] = field(init=False)
    width: int = field(init=False)
    offsets: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not self.variables:
            raise ValueError("AxisGroup: a group needs at least one variable")
        if self.structure not in STRUCTURES:
            raise ValueError(
                f"AxisGroup: structure must be 'dense' or 'block', got {self.structure!r}"
            )
        names = [v.name for v in self.variables]
        if len(set(names)) != len(names):
            raise ValueError(f"AxisGroup: duplicate variable names in {names}")
        if self.structure == "block":
            sub = self.variables[0].sub_batch_shape
            for v in self.variables:
                if v.sub_batch_shape != sub:
                    raise ValueError(
                        f"AxisGroup: block group variables must share one sub-batch shape; "
                        f"'{v.name}' has {v.sub_batch_shape}, '{self.variables[0].name}' has {sub}"
                    )
            sizes = [v.base_size for v in self.variables]
        else:
            sub = ()
            sizes = [v.sub_size * v.base_size for v in self.variables]
        offsets = [0]
        for s in sizes:
            offsets.append(offsets[-1] + s)
        object.__setattr__(self, "sub_batch_shape", sub)
        object.__setattr__(self, "width", offsets[-1])
        object.__setattr__(self, "offsets", tuple(offsets))

    @property
    def is_block(self) -> bool:
        """True for a ``block`` group."""
        return self.structure == "block"

    @property
    def trailing_ndim(self) -> int:
        """Number of trailing (non-batch) axes of the group tensor."""
        return len(self.sub_batch_shape) + 1

    @property
    def trailing_shape(self) -> tuple[int, ...]:
        """Trailing shape of the group tensor: ``(n,)`` or ``(*sub, n)``."""
        return (*self.sub_batch_shape, self.width)

    @property
    def flat_size(self) -> int:
        """Number of scalar unknowns of the group per batch element."""
        return math.prod(self.sub_batch_shape) * self.width

    @property
    def names(self) -> tuple[str, ...]:
        """Variable names in order."""
        return tuple(v.name for v in self.variables)


class AxisLayout:
    """Ordered groups of variables (see the module docstring for the storage rules)."""

    __slots__ = ("_index", "groups")

    def __init__(self, groups: Sequence[AxisGroup]) -> None:
        self.groups: tuple[AxisGroup, ...] = tuple(groups)
        if not self.groups:
            raise ValueError("AxisLayout: a layout needs at least one group")
        index: dict[str, tuple[int, int]] = {}
        for gi, g in enumerate(self.groups):
            for vi, v in enumerate(g.variables):
                if v.name in index:
                    raise ValueError(f"AxisLayout: variable '{v.name}' appears in two groups")
                index[v.name] = (gi, vi)
        self._index = index

    @classmethod
    def build(
        cls,
        groups: Sequence[Sequence[VariableInfo | tuple[str, tuple[int, ...]]]],
        structures: Sequence[Structure] | None = None,
    ) -> AxisLayout:
        """Build from per-group variable lists (``VariableInfo`` or ``(name, base_shape)``)."""
        structs: list[Structure] = (
            list(structures) if structures is not None else ["dense"] * len(groups)
        )
        if len(structs) != len(groups):
            raise ValueError(
                f"AxisLayout: {len(groups)} groups but {len(structs)} structures given"
            )
        out = []
        for vars_, st in zip(groups, structs, strict=True):
            infos = tuple(v if isinstance(v, VariableInfo) else VariableInfo(*v) for v in vars_)
            out.append(AxisGroup(infos, st))
        return cls(out)

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[AxisGroup]:
        return iter(self.groups)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AxisLayout) and self.groups == other.groups

    def __hash__(self) -> int:
        return hash(self.groups)

    def __repr__(self) -> str:
        parts = [f"{g.structure}{list(g.names)}" for g in self.groups]
        return f"AxisLayout({', '.join(parts)})"

    @property
    def names(self) -> tuple[str, ...]:
        """All variable names, group by group."""
        return tuple(n for g in self.groups for n in g.names)

    @property
    def flat_size(self) -> int:
        """Total number of scalar unknowns per batch element."""
        return sum(g.flat_size for g in self.groups)

    def locate(self, name: str) -> tuple[int, int]:
        """``(group index, index within group)`` of a variable."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(
                f"AxisLayout: no variable '{name}'; variables are {list(self.names)}"
            ) from None

    def variable(self, name: str) -> VariableInfo:
        """The ``VariableInfo`` of a variable."""
        gi, vi = self.locate(name)
        return self.groups[gi].variables[vi]


def broadcast_batch(*shapes: Sequence[int]) -> torch.Size:
    """Broadcast batch shapes (numpy rules), naming the offending shapes on failure."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for k, n in enumerate(s, start=ndim - len(s)):
            if n != 1 and out[k] not in (1, n):
                raise ValueError(f"batch shapes {[tuple(x) for x in shapes]} do not broadcast")
            if n != 1:
                out[k] = n
    return torch.Size(out)
