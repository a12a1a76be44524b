"""A user extension for the v3 host test: neml2::eager::load_model(file, name, {"v3_ext.py"})
imports it before building the model, so the input file may use its type."""

from typing import Any

from neml2.factory import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, output, parameter
from neml2.types import Scalar


@register_neml2_object("V3HostAffine")
class V3HostAffine(Model):
    """y = a x + 1."""

    hit = HitSchema(
        input("variable", Scalar, "Input variable", default="x"),
        output("result", Scalar, "Output variable", default="y"),
        parameter("a", Scalar, "Slope", default="3"),
    )

    def forward(self, x: Scalar, v: Any = None) -> Any:
        a = self._get_param("a")
        y = a * x + 1.0
        if v is None:
            return y
        return y, self.apply_chain_rule(v, "result", {"variable": lambda d: a * d}, output=y)
