r"""``{Scalar,SR2,Vec}BilinearInterpolation``: table lookup :math:`y(x_1, x_2)` on a grid.

In the cell :math:`[X_{1,i-1}, X_{1,i}] \times [X_{2,j-1}, X_{2,j}]` (edge cells extend outside
the grid) with :math:`\xi = (x_1 - X_{1,i-1})/\Delta_1`, :math:`\eta = (x_2 - X_{2,j-1})/\Delta_2`

.. math::  y = Y_{00} + (Y_{10} - Y_{00})\xi + (Y_{01} - Y_{00})\eta
   + (Y_{11} - Y_{10} - Y_{01} + Y_{00})\xi\eta

so :math:`\partial y/\partial x_1 = [(Y_{10} - Y_{00}) + c\,\eta]/\Delta_1` and
:math:`\partial y/\partial x_2 = [(Y_{01} - Y_{00}) + c\,\xi]/\Delta_2` with
:math:`c = Y_{11} - Y_{10} - Y_{01} + Y_{00}`; the only non-zero second derivative is
:math:`\partial^2 y/\partial x_1 \partial x_2 = c/(\Delta_1 \Delta_2)`.
``abscissa1``/``abscissa2`` (strictly increasing) carry their nodes on the last batch axis,
``ordinate`` on its last two batch axes ``(N1, N2)``. The output is named after the block unless option ``output`` renames it.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._interpolation_tables import check_abscissa, nodes, table
from neml2.models.model import Model
from neml2.schema import BLOCK_NAME, HitSchema, input, output, parameter
from neml2.tensors import (
    SR2,
    Scalar,
    Vec,
    bilinear_interpolation,
    bilinear_interpolation_mixed_derivative,
    bilinear_interpolation_slopes,
)

__all__ = ["BILINEAR_INTERPOLATIONS", "BilinearInterpolation", "make_bilinear_interpolation"]


class BilinearInterpolation(Model):
    """Generic bilinear lookup; concrete types from :func:`make_bilinear_interpolation`."""

    def __post_init__(self) -> None:
        n1 = check_abscissa(self._get_param("abscissa1"), "abscissa1")
        n2 = check_abscissa(self._get_param("abscissa2"), "abscissa2")
        got = nodes(self._get_param("ordinate"), "ordinate", 2)
        if got != (n1, n2):
            raise ValueError(
                f"option 'ordinate': table node shape {got}, expected ({n1}, {n2}) from "
                f"'abscissa1' and 'abscissa2'"
            )

    def _tables(self) -> tuple[Any, Any, Any]:
        return (
            table(self._get_param("abscissa1"), 1),
            table(self._get_param("abscissa2"), 1),
            table(self._get_param("ordinate"), 2),
        )

    SUPPORTS_SECOND_ORDER = True

    def forward(self, x1: Any, x2: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Interpolated value and (with ``v``/``v2``/``vh``) its first and second tangents."""
        X1, X2, Y = self._tables()
        y = bilinear_interpolation(x1, x2, X1, X2, Y)
        if v is None:
            return y
        s1, s2 = bilinear_interpolation_slopes(x1, x2, X1, X2, Y)
        actions = {"argument1": lambda d: s1 * d, "argument2": lambda d: s2 * d}
        actions_2 = None
        if v2 is not None or vh is not None:
            s12 = bilinear_interpolation_mixed_derivative(x1, x2, X1, X2, Y)
            actions_2 = {
                ("argument1", "argument2"): lambda da, db: s12 * (da * db),
                ("argument2", "argument1"): lambda da, db: s12 * (da * db),
            }
        return y, *self.propagate_tangents(
            v, "output", actions, output=y, v2=v2, vh=vh, actions_2=actions_2
        )


def make_bilinear_interpolation(tensor_type: Any) -> type[BilinearInterpolation]:
    """Concrete ``<T>BilinearInterpolation`` class for ordinate type ``tensor_type``."""
    tn = tensor_type.__name__
    name = f"{tn}BilinearInterpolation"
    hit = HitSchema(
        input("argument1", Scalar, "First argument x1", attr="argument1_name"),
        input("argument2", Scalar, "Second argument x2", attr="argument2_name"),
        output("output", tensor_type, "Interpolated value (defaults to the block name)",
               default=BLOCK_NAME, attr="output_name"),
        parameter("abscissa1", Scalar, "Strictly increasing grid abscissae along x1"),
        parameter("abscissa2", Scalar, "Strictly increasing grid abscissae along x2"),
        parameter("ordinate", tensor_type, "Grid ordinates (nodes on the last two batch axes)"),
    )  # fmt: skip
    doc = f"Bilinear interpolation of a {tn} table y(x1, x2), extrapolating from edge cells."
    cls = type(name, (BilinearInterpolation,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


BILINEAR_INTERPOLATIONS = {t.__name__: make_bilinear_interpolation(t) for t in (Scalar, SR2, Vec)}
