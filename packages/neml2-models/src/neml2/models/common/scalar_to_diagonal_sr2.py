r"""``ScalarToDiagonalSR2``: the isotropic tensor :math:`Y = s\,I` of a Scalar :math:`s`.

Derivative: :math:`\partial Y/\partial s = I`; the second derivative vanishes.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import SR2, Scalar

__all__ = ["ScalarToDiagonalSR2"]


@register_neml2_object("ScalarToDiagonalSR2")
class ScalarToDiagonalSR2(Model):
    """Diagonal SR2 s * I from a Scalar s."""

    SUPPORTS_SECOND_ORDER = True
    hit = HitSchema(
        input("input", Scalar, "Scalar s", attr="input_name"),
        output("output", SR2, "Diagonal tensor s * I", attr="output_name"),
    )

    def forward(self, s: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """``s I`` and (with ``v``) its tangents."""
        eye = SR2.identity(dtype=s.dtype, device=s.device)
        y = s * eye
        if v is None:
            return y
        actions = {"input": lambda d: d * eye}
        return y, *self.propagate_tangents(v, "output", actions, output=y, v2=v2, vh=vh)
