"""A user extension loaded by dotted name (this folder is on PYTHONPATH in the eager ctests):
registers EagerDottedScale, y = a x."""

from typing import Any

from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.types import Scalar


@register_neml2_object("EagerDottedScale")
class EagerDottedScale(Model):
    """y = a x."""

    hit = HitSchema(
        input("variable", Scalar, "Input variable", default="x"),
        output("result", Scalar, "Output variable", default="y"),
        parameter("a", Scalar, "Slope", default="2"),
    )

    def forward(self, x: Scalar, v: Any = None) -> Any:
        a = self._get_param("a")
        y = a * x
        if v is None:
            return y
        return y, self.apply_chain_rule(v, "result", {"variable": lambda d: a * d}, output=y)
