"""The call surface every Python route's model offers: :class:`RouteModel`.

A model loaded from an input file is a py-eager :class:`~neml2.models.Model` (also what py-jit
traces), or, for ``type = AOTIModel`` blocks, neml2-aoti's wrapper of a compiled artifact
(py-aoti). Both take and return variables by name, in the same layouts:

- ``call_by_name(x)`` / ``value(x)``: ``{output: y}`` from ``{input: x}``;
- ``jvp(x, t)``: ``(y, {output: dy/dx · t})``, missing tangents count as zero;
- ``jacobian(x)``: ``(y, J)`` with ``J[output][input]`` of shape
  ``(*batch, *output_base, *input_base)`` (sub-batched blocks as documented by each route);
- ``param_jacobian(x)``: ``(y, P)`` with ``P[output][parameter]`` of shape
  ``(*batch, *output_base, *parameter_base)``; ``param_vjp(x, c)``: ``Σ_batch c · dy/dp``;
- ``named_parameters()`` / ``parameter_base_shapes()`` / ``set_parameter(name, value)`` by the
  public (NEML2 v3) parameter names.

Code written against this protocol (drivers, calibration, the route-parity tests) runs on either
route. It is ``runtime_checkable``: ``isinstance(m, RouteModel)`` checks the members exist.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import torch

__all__ = ["RouteModel"]


@runtime_checkable
class RouteModel(Protocol):
    """A model evaluated by name on one route (py-eager, py-jit or py-aoti)."""

    @property
    def input_spec(self) -> Mapping[str, Any]:
        """Input variable name → tensor type, in call order."""
        ...

    @property
    def output_spec(self) -> Mapping[str, Any]:
        """Output variable name → tensor type, in result order."""
        ...

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Evaluate with the inputs given positionally in ``input_spec`` order."""
        ...

    def call_by_name(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """``{output: value}`` from ``{input: value}``."""
        ...

    def value(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Same as :meth:`call_by_name`."""
        ...

    def jvp(
        self, inputs: Mapping[str, Any], tangents: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, {output: directional derivative})``."""
        ...

    def jacobian(self, inputs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, J)`` with ``J[output][input]`` a tensor."""
        ...

    def param_jacobian(
        self, inputs: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, dict[str, torch.Tensor]]]:
        """``(outputs, P)`` with ``P[output][parameter]`` a tensor."""
        ...

    def param_vjp(
        self, inputs: Mapping[str, Any], cotangents: Mapping[str, Any]
    ) -> dict[str, torch.Tensor]:
        """``Σ_batch <cotangent, d output / d parameter>`` per parameter."""
        ...

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, torch.Tensor]]:
        """``(public name, tensor)`` of every parameter."""
        ...

    def parameter_base_shapes(self) -> dict[str, tuple[int, ...]]:
        """Public parameter name → base shape of its tensor type."""
        ...

    def set_parameter(self, name: str, value: Any) -> None:
        """Replace a parameter's value by its public name."""
        ...
