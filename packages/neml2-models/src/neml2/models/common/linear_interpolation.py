r"""``ScalarLinearInterpolation``: piecewise-linear table lookup :math:`y(x)`.

On the segment :math:`X_{i-1} \le x < X_i` (end segments extend outside the table)

.. math::  y = Y_{i-1} + \frac{Y_i - Y_{i-1}}{X_i - X_{i-1}}\,(x - X_{i-1}),
   \qquad \frac{\partial y}{\partial x} = \frac{Y_i - Y_{i-1}}{X_i - X_{i-1}}

and :math:`\partial^2 y/\partial x^2 = 0`. ``abscissa`` :math:`X` (strictly increasing) and
``ordinate`` :math:`Y` carry the table nodes on their last batch axis (a literal ``'0 1 2'``
is a 3-node table). The output is named after the block unless option ``output`` renames it.
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.common._interpolation_tables import check_abscissa, nodes, table
from neml2.models.model import Model
from neml2.schema import BLOCK_NAME, HitSchema, input, output, parameter
from neml2.tensors import Scalar, linear_interpolation, linear_interpolation_slope

__all__ = ["LinearInterpolation", "ScalarLinearInterpolation", "make_linear_interpolation"]


class LinearInterpolation(Model):
    """Generic piecewise-linear lookup; concrete types from :func:`make_linear_interpolation`."""

    SUPPORTS_SECOND_ORDER = True

    def __post_init__(self) -> None:
        n = check_abscissa(self._get_param("abscissa"), "abscissa")
        (m,) = nodes(self._get_param("ordinate"), "ordinate")
        if m != n:
            raise ValueError(
                f"option 'ordinate': {m} table nodes, but 'abscissa' has {n} (they must match)"
            )

    def forward(self, x: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Interpolated value and (with ``v``) its tangents."""
        X = table(self._get_param("abscissa"), 1)
        Y = table(self._get_param("ordinate"), 1)
        y = linear_interpolation(x, X, Y)
        if v is None:
            return y
        slope = linear_interpolation_slope(x, X, Y)
        actions = {"argument": lambda d: slope * d}
        return y, *self.propagate_tangents(v, "output", actions, output=y, v2=v2, vh=vh)


def make_linear_interpolation(tensor_type: Any) -> type[LinearInterpolation]:
    """Concrete ``<T>LinearInterpolation`` class for ordinate type ``tensor_type``."""
    tn = tensor_type.__name__
    name = f"{tn}LinearInterpolation"
    hit = HitSchema(
        input("argument", Scalar, "Argument x of the table", attr="argument_name"),
        output("output", tensor_type, "Interpolated value (defaults to the block name)",
               default=BLOCK_NAME, attr="output_name"),
        parameter("abscissa", Scalar, "Strictly increasing table abscissae (last batch axis)"),
        parameter("ordinate", tensor_type, "Table ordinates (nodes on the last batch axis)"),
    )  # fmt: skip
    doc = f"Piecewise-linear interpolation of a {tn} table y(x), extrapolating linearly."
    cls = type(name, (LinearInterpolation,), {"hit": hit, "__doc__": doc, "__module__": __name__})
    return register_neml2_object(name)(cls)


ScalarLinearInterpolation = make_linear_interpolation(Scalar)
