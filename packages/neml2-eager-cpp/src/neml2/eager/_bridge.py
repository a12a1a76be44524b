r"""``EagerModel``: the Python side of ``neml2::eager::Model`` (``docs/design/runtime.md``,
"Eager C++ route").

The C++ runtime holds one :class:`EagerModel` per ``neml2::eager::Model`` and calls its methods
with raw tensors under the GIL. The adapter loads ``[Models/<name>]`` through
``neml2.factory.load_input`` (the path ``neml2-run`` uses), takes names, types, base and
sub-batch shapes from :func:`neml2.models.boundary.boundary_variables` (the helper the AOTI
metadata uses), checks every tensor against the canonical boundary
(:mod:`neml2.eager._canonical`) and evaluates through the model's own chain rule:

* ``forward``: :math:`y = f(x)`;
* ``jvp``: :math:`(y, \sum_i \partial y/\partial x_i\, \mathrm{d}x_i)` (a missing tangent is 0);
* ``jacobian``: :math:`J_{yx} = \partial y/\partial x`, blocks ``(*B, *y_base, *x_base)``;
* ``param_jacobian``: :math:`\partial y/\partial p`, blocks ``(*B, *y_base, *p_base)``;
* ``param_vjp``: :math:`\sum_B \sum_y \langle c_y, \partial y/\partial p\rangle`.

Parameter names: the public names of :class:`neml2.models.public_names.PublicNames` (those of the
AOTI artifact, ARTIFACT.md §2): ``model.E`` for a bare leaf, ``implicit_rate.rate.scaling`` for a
root ``ImplicitUpdate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from neml2.eager._canonical import broadcast_batch, canonical_inputs, canonical_outputs
from neml2.factory import load_input, load_module
from neml2.models.boundary import VarInfo, boundary_variables
from neml2.models.model import Model
from neml2.models.public_names import PublicNames

__all__ = ["EagerModel"]


def _device_of(model: Any) -> torch.device:
    """The device of the model's first parameter or buffer (torch's default device if none)."""
    tensors: list[torch.Tensor] = [*model.parameters(), *model.buffers()]
    return tensors[0].device if tensors else torch.empty(0).device


class EagerModel:
    """A neml2 model behind the raw ``dict[str, Tensor]`` boundary of the eager C++ route."""

    def __init__(
        self,
        path: str,
        name: str,
        device: str | None = "cpu",
        dtype: torch.dtype = torch.float64,
        overrides: Sequence[str] = (),
        load: Sequence[str] = (),
    ) -> None:
        """``device=None`` keeps the device the input file builds the model on; ``load`` lists
        the ``--load`` extensions (``.py`` file, package directory or dotted module) imported,
        in order, before the input file is read."""
        for extension in load:
            load_module(extension)
        if not Path(path).is_file():
            raise FileNotFoundError(f"input file '{path}' does not exist")
        factory = load_input(path, additional_args=list(overrides), device=device, dtype=dtype)
        model = factory.get_model(name)
        if not isinstance(model, Model):
            raise TypeError(
                f"{path}: [Models/{name}] is a {type(model).__name__}, not a py-eager model; the "
                "eager C++ route evaluates py-eager models only (load a compiled artifact with "
                "neml2::aoti::Model)"
            )
        self.model = model
        self.device = torch.device(device) if device is not None else _device_of(self.model)
        self.dtype = dtype
        self._inputs, self._outputs = boundary_variables(self.model, factory.settings)
        self._names = PublicNames.of(self.model, name)

    # ------------------------------------------------------------------ metadata
    @staticmethod
    def _describe(infos: Sequence[VarInfo]) -> list[tuple[str, str, list[int], list[int]]]:
        return [(i.name, i.var_type, list(i.base_shape), list(i.sub_batch_shape)) for i in infos]

    def input_variables(self) -> list[tuple[str, str, list[int], list[int]]]:
        """``(name, type, base shape, sub-batch shape)`` of every input, in call order."""
        return self._describe(self._inputs)

    def output_variables(self) -> list[tuple[str, str, list[int], list[int]]]:
        """``(name, type, base shape, sub-batch shape)`` of every output."""
        return self._describe(self._outputs)

    def options(self) -> torch.Tensor:
        """An empty tensor carrying the model's device and dtype."""
        return torch.empty(0, dtype=self.dtype, device=self.device)

    def parameter_base_shapes(self) -> dict[str, list[int]]:
        """Qualified parameter name → base shape of its tensor type."""
        shapes = self.model.parameter_base_shapes()
        return {self._names.public(n): list(s) for n, s in shapes.items()}

    def named_parameters(self) -> dict[str, torch.Tensor]:
        """A copy of every parameter value (editing it changes nothing)."""
        return {self._names.public(n): p.detach().clone() for n, p in self.model.named_parameters()}

    def set_parameter(self, name: str, value: torch.Tensor) -> None:
        """Replace parameter ``name`` (a boundary name, see :meth:`named_parameters`; aliases as
        for ``Model.parameter_name``)."""
        self.model.set_parameter(self._local(name), value)

    def _local(self, name: str) -> str:
        """The qualified py-eager name of parameter ``name``; ``ValueError`` listing the
        parameters when there is none."""
        known = dict(self.model.named_parameters())
        local = self._names.local(name)
        if local is None or local not in known:
            raise ValueError(
                f"unknown parameter '{name}'; parameters: "
                f"{sorted(self._names.public(n) for n in known)}"
            )
        return local

    # ------------------------------------------------------------------ evaluation
    def _args(self, inputs: Mapping[str, torch.Tensor]) -> tuple[dict[str, Any], tuple[int, ...]]:
        return canonical_inputs(
            "input", inputs, self._inputs, self.model.input_spec, self.device, self.dtype
        )

    def forward(self, inputs: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Output values ``(*B, *sub, *base)``."""
        x, batch = self._args(inputs)
        with torch.no_grad():
            y = self.model.value(x)  # the traced graph when neml2.jit tracing is on
        return canonical_outputs("output", y, self._outputs, batch)

    def value(self, inputs: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``neml2::Model::value``: the same as :meth:`forward`."""
        return self.forward(inputs)

    def summary(self) -> str:
        """What ``print(model)`` shows (``Name:``/``Input:``/``Output:``)."""
        return str(self.model)

    def jvp(
        self, inputs: Mapping[str, torch.Tensor], tangents: Mapping[str, torch.Tensor]
    ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """Outputs and directional derivatives along ``tangents`` (keyed and shaped as inputs)."""
        x, batch = self._args(inputs)
        dx, dbatch = canonical_inputs(
            "tangent",
            tangents,
            self._inputs,
            self.model.input_spec,
            self.device,
            self.dtype,
            required=False,
        )
        # outputs keep the inputs' batch; a batch of tangents gives a batch of derivatives
        dbatch = broadcast_batch(batch, dbatch)
        y, dy = self.model.jvp(x, dx)
        return (
            canonical_outputs("output", y, self._outputs, batch),
            canonical_outputs("jvp output", dy, self._outputs, dbatch),
        )

    def jacobian(
        self, inputs: Mapping[str, torch.Tensor]
    ) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
        """Outputs and every block ``J[out][in]`` (see ``neml2.models.Model.jacobian``)."""
        x, batch = self._args(inputs)
        y, J = self.model.jacobian(x)
        blocks = {o: {i: b.data.detach() for i, b in row.items()} for o, row in J.items()}
        return canonical_outputs("output", y, self._outputs, batch), blocks

    def param_jacobian(
        self, inputs: Mapping[str, torch.Tensor]
    ) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
        """Outputs and the blocks ``J[out][param]`` ``(*B, *out_base, *param_base)`` for every
        parameter (NEML2 v3's pair)."""
        x, batch = self._args(inputs)
        y, J = self.model.param_jacobian(x)
        blocks = {
            o: {self._names.public(p): b.detach() for p, b in row.items()} for o, row in J.items()
        }
        if any(o.sub_batch_shape for o in self._outputs):  # y is raw: no sub-batch layout
            return self.forward(inputs), blocks
        return canonical_outputs("output", y, self._outputs, batch), blocks

    def param_vjp(
        self, inputs: Mapping[str, torch.Tensor], cotangents: Mapping[str, torch.Tensor]
    ) -> dict[str, torch.Tensor]:
        """Gradient of :math:`\\sum_B \\sum_y \\langle c_y, y\\rangle` w.r.t. every parameter."""
        x, _ = self._args(inputs)
        names = [o.name for o in self._outputs]
        unknown = sorted(set(cotangents) - set(names))
        if unknown:
            raise ValueError(f"cotangents for unknown output(s) {unknown}; outputs: {names}")
        g = self.model.param_vjp(x, cotangents)
        return {self._names.public(p): v.detach() for p, v in g.items()}

    # ------------------------------------------------------------------ param_overrides
    def with_overrides(self, method: str, overrides: Mapping[str, torch.Tensor], *args: Any) -> Any:
        """``getattr(self, method)(*args)`` with the parameters in ``overrides`` (boundary names)
        set for this call only (``param_overrides`` of ``neml2::eager::Model``; the C++ side holds
        the model's mutex). The previous parameters are put back afterwards, also when the call
        raises; an unknown name is :meth:`set_parameter`'s error, raised before anything is set."""
        saved: list[tuple[str, torch.nn.Parameter, torch.Tensor]] = []
        for name in overrides:
            local = self._local(name)
            param = self.model.get_parameter(local)
            saved.append((local, param, param.detach().clone()))
        try:
            for name, value in overrides.items():
                self.set_parameter(name, value)
            return getattr(self, method)(*args)
        finally:
            with torch.no_grad():
                for local, param, data in reversed(saved):
                    # the original object: a batched override replaces it (another shape)
                    path, _, attr = local.rpartition(".")
                    self.model.get_submodule(path).register_parameter(attr, param)
                    param.copy_(data)
