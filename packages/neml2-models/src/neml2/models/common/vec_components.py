r"""``VecComponents``: the three Scalar components :math:`(v_0, v_1, v_2)` of a Vec :math:`v`.

Option ``to`` names the three outputs in order. Derivatives:
:math:`\partial v_i/\partial v = e_i^T`; second derivatives vanish.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option
from neml2.tensors import Scalar, Vec, vec_component

__all__ = ["VecComponents"]


@register_neml2_object("VecComponents")
class VecComponents(Model):
    """Split a Vec into three Scalar variables."""

    SUPPORTS_SECOND_ORDER = True
    to_vars: list[str]
    hit = HitSchema(
        input("from", Vec, "Vector to split", attr="from_var"),
        option("to", list[str], "Names of the three component variables", attr="to_vars"),
    )

    def __post_init__(self) -> None:
        raw = self.to_vars
        names = raw.split() if isinstance(raw, str) else [str(n) for n in raw]
        if len(names) != 3:
            raise ValueError(f"option 'to': expected 3 variable names, got {len(names)}: {names}")
        if len(set(names)) != 3:
            raise ValueError(f"option 'to': duplicate variable names in {names}")
        if self.from_var in names:
            raise ValueError(f"option 'to': '{self.from_var}' is also the input variable ('from')")
        self.to_vars = names
        self.output_spec = {n: Scalar for n in names}
        self.output_priorities = {n: None for n in names}

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The three components and (with ``v``) their tangents."""
        ys = tuple(vec_component(x, i) for i in range(3))
        if v is None:
            return ys
        parts: list[dict[str, Any]] = []
        for i, (name, y) in enumerate(zip(self.to_vars, ys, strict=True)):
            res = self.propagate_tangents(
                v, name, {"from": lambda d, i=i: vec_component(d, i)}, output=y, v2=v2, vh=vh
            )
            parts = [{**p, **r} for p, r in zip(parts, res, strict=True)] if parts else list(res)
        return (*ys, *parts)
