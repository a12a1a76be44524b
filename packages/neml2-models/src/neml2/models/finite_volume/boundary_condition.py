r"""``FiniteVolumeAppendBoundaryCondition``: append a boundary (ghost) cell to a cell axis.

:math:`y = (b, u_0, \dots, u_{N-1})` for ``side = left`` and
:math:`y = (u_0, \dots, u_{N-1}, b)` for ``side = right`` (``N`` cells :math:`\to` ``N + 1``),
with :math:`b` = ``bc_value`` (a number, or one value per dynamic-batch entry). The cells are
the last sub-batch axis of ``input``. The output defaults to ``<input>_with_bc_<side>``.
Linear: :math:`\partial y_{j}/\partial u_i = \delta_{j, i+1}` (left) or :math:`\delta_{j,i}`
(right); the Jacobian block is ``(N + 1) x N`` (full layout), and
:math:`\partial^2 y/\partial u^2 = 0` (second tangents: the first-order map of ``v2``).
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.finite_volume._cells import cells, explicit
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output, parameter
from neml2.tensors import Scalar, cat

__all__ = ["FiniteVolumeAppendBoundaryCondition"]

_SIDES = ("left", "right")


@register_neml2_object("FiniteVolumeAppendBoundaryCondition")
class FiniteVolumeAppendBoundaryCondition(Model):
    """Concatenate a boundary-value cell before (left) or after (right) the cell axis."""

    SUPPORTS_SECOND_ORDER = True
    input_var: str
    output_var: str | None
    side: str
    hit = HitSchema(
        input("input", Scalar, "Cell values (cells on the last sub-batch axis)",
              attr="input_var"),
        output("output", Scalar, "Cell values with the boundary cell (default "
               "<input>_with_bc_<side>)", default=None, attr="output_var"),
        parameter("bc_value", Scalar, "Boundary value b"),
        option("side", str, "Side of the appended cell: left or right", default="left"),
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.side not in _SIDES:
            raise ValueError(f"option 'side': must be 'left' or 'right', got {self.side!r}")
        if self.output_var is None:
            name = f"{self.input_var}_with_bc_{self.side}"
            self.output_var = name
            self.output_spec = {name: Scalar}
            self.output_priorities = {name: None}
            self._var_renames["output"] = name

    def _append(self, t: Any, b: Any) -> Any:
        ns = t.sub_batch_ndim
        if b.sub_batch_ndim != ns:
            # one boundary cell by broadcasting (no reshape of a possibly 0-d constant)
            one = torch.zeros((1,) * ns, dtype=t.data.dtype, device=t.data.device)
            b = b + Scalar(one, sub_batch_ndim=ns)
        parts = [b.sub_batch, t.sub_batch] if self.side == "left" else [t.sub_batch, b.sub_batch]
        return cat(parts, -1)

    def forward(self, u: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The extended cell values and (with ``v``) their first and second tangents."""
        cells(u, f"variable '{self.input_var}'")
        y = self._append(u, self._get_param("bc_value"))

        def du(d: Any) -> Any:
            e = explicit(d, u)
            return self._append(e, e.sub_batch[..., :1] * 0.0)

        if v is None:
            return y
        return y, *self.propagate_tangents(v, "output", {"input": du}, output=y, v2=v2, vh=vh)
