r"""``SR2Invariant``: a scalar invariant :math:`f(A)` of a symmetric second-order tensor.

``invariant_type`` selects (:math:`s = \operatorname{dev} A`, :math:`\epsilon` machine epsilon):

* ``I1``: :math:`f = \operatorname{tr} A`;
* ``VONMISES``: :math:`f = \sqrt{\tfrac32\, s:s + \epsilon}`;
* ``EFFECTIVE_STRAIN``: :math:`f = \sqrt{\tfrac23\, s:s + \epsilon}`.

For the square-root forms :math:`f = \sqrt{c\, s:s + \epsilon}`:
:math:`f'[a] = c\, s:a / f` and
:math:`f''[a, b] = c\, \operatorname{dev}(a):b / f - c^2 (s:a)(s:b) / f^3`.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.models.chain_rule import product_term
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import SR2, Scalar, dev, inner, sqrt, tr

__all__ = ["SR2Invariant"]

_COEFFICIENTS = {"VONMISES": 1.5, "EFFECTIVE_STRAIN": 2.0 / 3.0}
_TYPES = ("I1", *_COEFFICIENTS)


@register_neml2_object("SR2Invariant")
class SR2Invariant(Model):
    """Scalar invariant of an SR2: trace (I1), von Mises or effective-strain norm."""

    ACCEPTS_DEFERRED_TANGENTS = True
    SUPPORTS_SECOND_ORDER = True
    invariant_type: str
    hit = HitSchema(
        input("tensor", SR2, "The symmetric tensor A"),
        output("invariant", Scalar, "The invariant f(A)"),
        option("invariant_type", str, "Invariant: I1, VONMISES or EFFECTIVE_STRAIN"),
    )

    def __post_init__(self) -> None:
        if self.invariant_type not in _TYPES:
            raise ValueError(
                f"option 'invariant_type': unknown invariant {self.invariant_type!r}; "
                f"expected one of {list(_TYPES)}"
            )

    def forward(self, A: Any, *, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """The invariant and (with ``v``) its first and second tangents."""
        if self.invariant_type == "I1":
            f = tr(A)
            if v is None:
                return f
            return f, *self.propagate_tangents(
                v, "invariant", {"tensor": tr}, output=f, v2=v2, vh=vh
            )
        c = _COEFFICIENTS[self.invariant_type]
        s = dev(A)
        f = sqrt(c * inner(s, s) + torch.finfo(A.dtype).eps)
        if v is None:
            return f
        n = s * (c / f)  # df/dA = c s / f
        actions = {"tensor": lambda d: inner(n, d)}
        # d2f/dA2 [a, b] = (c dev(a) : b - (n : a)(n : b)) / f
        c_f, m_f = c / f, -1.0 / f
        actions_2 = {
            ("tensor", "tensor"): lambda a, b: (
                product_term(c_f, inner(dev(a), b)),
                product_term(inner(n, a) * m_f, inner(n, b)),
            )
        }
        return f, *self.propagate_tangents(
            v, "invariant", actions, output=f, v2=v2, vh=vh, actions_2=actions_2
        )
