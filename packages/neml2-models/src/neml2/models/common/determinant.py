r"""``{R2,SR2}Determinant``: :math:`J = \det A` (closed-form 3x3).

Tangent: :math:`\mathrm{d}J = \operatorname{cof}(A) : \mathrm{d}A` with the cofactor matrix
from Cayley–Hamilton (valid for singular :math:`A` too):
:math:`\operatorname{cof}(A) = \left(A^2 - (\operatorname{tr}A)\,A +
\tfrac12[(\operatorname{tr}A)^2 - \operatorname{tr}(A^2)]\,I\right)^T`.
For an SR2 the cofactor is symmetric, so the Mandel dot product gives the same contraction.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output
from neml2.tensors import R2, SR2, Scalar, det, inner, r2_from_sr2, sym, tr, transpose

__all__ = ["Determinant", "cofactor", "make_determinant"]


def cofactor(A: Any) -> Any:
    """Cofactor matrix of an R2 (``det(A) A^{-T}`` for invertible ``A``)."""
    A2 = A @ A
    t = tr(A)
    c = (t * t - tr(A2)) * 0.5
    return transpose(A2 - t * A + c * R2.identity(dtype=A.dtype, device=A.device))


class Determinant(Model):
    """Generic determinant; concrete types come from :func:`make_determinant`."""

    def forward(self, A: Any, *, v: Any = None) -> Any:
        """Determinant and (with ``v``) its tangents."""
        J = det(A)
        if v is None:
            return J
        cof = sym(cofactor(r2_from_sr2(A))) if isinstance(A, SR2) else cofactor(A)
        return J, *self.propagate_tangents(
            v, "determinant", {"input": lambda d: inner(cof, d)}, output=J
        )


def make_determinant(tensor_type: Any) -> type[Determinant]:
    """Concrete ``<T>Determinant`` class for tensor type ``tensor_type``."""
    name = f"{tensor_type.__name__}Determinant"
    hit = HitSchema(
        input("input", tensor_type, "The tensor A"),
        output("determinant", Scalar, "det(A)"),
    )
    doc = f"Determinant of a {tensor_type.__name__}."
    cls = type(name, (Determinant,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


R2Determinant = make_determinant(R2)
SR2Determinant = make_determinant(SR2)
