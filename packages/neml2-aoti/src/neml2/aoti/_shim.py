"""``AOTIModel``: a compiled artifact behind the ``[Models]`` interface of py-eager
(``docs/design/runtime.md``, "AOTIModel shim").

A stub written by ``neml2-compile`` holds ``[<name>] type = AOTIModel artifact_path = '<dir>'``;
``neml2.load_model(stub, name)`` and ``neml2-run stub.i driver`` then evaluate the compiled graphs
through :class:`neml2.aoti.Model`. ``artifact_path`` is relative to the stub's folder; the leaf
``<device>/<dtype>`` comes from ``load_model(..., device=, dtype=)`` / ``--device/--dtype``
(default cpu and float64). Typed wrappers come from the metadata ``var_type`` of each variable.

This module needs neml2-models (registry, schema, tensors); ``neml2.aoti`` imports it lazily.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

import neml2.tensors as _tensors
from neml2.aoti._aoti import Model
from neml2.aoti._errors import FatalError
from neml2.factory import register_neml2_object
from neml2.schema import HitSchema, option
from neml2.tensors import TensorWrapper

__all__ = ["AOTIModel"]

_broadcast_shapes: Callable[..., torch.Size] = torch.broadcast_shapes
_FIX = "re-run neml2-compile on the original input file to regenerate the artifact"


def _wrapper_type(var_type: str, base_shape: list[int], what: str) -> Any:
    """The typed wrapper class named by a metadata ``var_type`` (checked against the base shape)."""
    cls = getattr(_tensors, var_type, None) if var_type else None
    if not (isinstance(cls, type) and issubclass(cls, TensorWrapper)) or cls is TensorWrapper:
        raise FatalError(
            f"{what}: metadata var_type {var_type!r} is not a neml2 tensor type; {_FIX}"
        )
    if tuple(cls.BASE_SHAPE) != tuple(base_shape):
        raise FatalError(
            f"{what}: metadata var_type {var_type} has base shape {list(cls.BASE_SHAPE)}, but the "
            f"artifact records {list(base_shape)}; {_FIX}"
        )
    return cls


def _sub_batch_shapes(root: Path, key: str, count: int) -> list[tuple[int, ...]]:
    """``sub_batch_shape`` of each master input/output of the metadata (empty when absent)."""
    meta = json.loads((root / "metadata.json").read_text())
    entries = meta.get(key, [])
    out = [tuple(int(n) for n in e.get("sub_batch_shape", ())) for e in entries]
    return out if len(out) == count else [()] * count


def _same_device(a: torch.device, b: torch.device) -> bool:
    return a.type == b.type and (a.index is None or b.index is None or a.index == b.index)


@register_neml2_object("AOTIModel")
class AOTIModel(nn.Module):
    """A compiled neml2 model (``neml2-compile`` artifact) usable wherever a model is.

    ``forward(*inputs)`` takes the inputs positionally in ``input_spec`` order (typed wrappers,
    or raw ``(*batch, *sub, *base)`` tensors) and always returns a tuple in ``output_spec``
    order. Inputs must be on the artifact's device and dtype (TypeError otherwise, never a silent
    cast; promoted parameters are checked by the runtime when set). ``v=`` tangents are
    rejected: use :meth:`jvp` or :meth:`jacobian` (the compiled derivative pairs).
    """

    SECTION: ClassVar[str] = "Models"
    hit: ClassVar[HitSchema] = HitSchema(
        option(
            "artifact_path",
            str,
            "Artifact folder written by neml2-compile (metadata.json + <device>/<dtype>/*.pt2), "
            "relative to the folder of this input file",
        )
    )

    def __init__(
        self,
        meta_path: str | Path | None = None,
        *,
        artifact_path: str | Path | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        """``meta_path`` (NEML2 v3's keyword) or its alias ``artifact_path``: the artifact folder
        or its metadata file (``metadata.json``, or v3's ``<model>_meta.json`` in the folder)."""
        super().__init__()
        if (meta_path is None) == (artifact_path is None):
            raise TypeError(
                "AOTIModel: give the artifact as meta_path or artifact_path (exactly one of them)"
            )
        given = Path(meta_path if meta_path is not None else artifact_path)  # type: ignore[arg-type]
        named_file = given.name == "metadata.json" or given.name.endswith("_meta.json")
        root = given.parent if named_file and not given.is_dir() else given
        if not root.is_dir():
            raise FatalError(
                f"AOTIModel: artifact folder '{root}' does not exist: run neml2-compile again or "
                f"copy the artifact folder there"
            )
        self._inner = Model(str(root), device, dtype)
        inner = self._inner
        self.artifact_root = root
        ins, outs = inner.input_names, inner.output_names
        self.input_spec: dict[str, Any] = {
            n: _wrapper_type(t, b, f"AOTIModel '{root}': input '{n}'")
            for n, t, b in zip(ins, inner.input_types, inner.input_base_shapes, strict=True)
        }
        self.output_spec: dict[str, Any] = {
            n: _wrapper_type(t, b, f"AOTIModel '{root}': output '{n}'")
            for n, t, b in zip(outs, inner.output_types, inner.output_base_shapes, strict=True)
        }
        self._in_sub = _sub_batch_shapes(root, "inputs", len(ins))
        self._out_sub = _sub_batch_shapes(root, "outputs", len(outs))
        self._device, self._dtype = inner.device, inner.dtype
        self._in_vars = [
            (n, cls, sub)
            for (n, cls), sub in zip(self.input_spec.items(), self._in_sub, strict=True)
        ]
        self._hit_name: str | None = None

    # ------------------------------------------------------------------ construction from HIT
    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> AOTIModel:
        """Build from ``[Models/<name>]``; ``artifact_path`` is relative to the stub's folder."""
        raw = node.get_str("artifact_path").strip()
        if not raw:
            raise ValueError("option 'artifact_path' is empty; it must name the artifact folder")
        where = Path(node.file).parent if getattr(node, "file", None) else factory.directory
        root = Path(raw) if Path(raw).is_absolute() else where / raw
        device = getattr(factory, "device", None)
        dtype = getattr(factory, "dtype", None)
        loc = f"{node.file or '<string>'}:{node.line}: [Models/{node.name}] (type='AOTIModel')"
        if not root.is_dir():
            raise FatalError(
                f"{loc}: artifact folder '{root}' (artifact_path = '{raw}') does not exist: run "
                f"neml2-compile again or copy the artifact folder next to the stub"
            )
        try:
            model = cls(root, device=device, dtype=dtype)
        except FatalError as e:
            text = " ".join(str(e).split())
            if str(root) not in text:
                text = f"artifact '{root}': {text}"
            raise FatalError(f"{loc}: {text}") from None
        model._hit_name = node.name
        return model

    # ------------------------------------------------------------------ properties
    @property
    def runtime(self) -> Model:
        """The underlying :class:`neml2.aoti.Model`."""
        return self._inner

    @property
    def device(self) -> torch.device:
        """Device of the loaded leaf."""
        return self._device

    @property
    def dtype(self) -> torch.dtype:
        """Floating dtype of the loaded leaf."""
        return self._dtype

    def to(self, *args: Any, **kwargs: Any) -> AOTIModel:
        """No-op for the loaded device/dtype; anything else raises (an artifact is pinned)."""
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
        if (device is not None and not _same_device(torch.device(device), self.device)) or (
            dtype is not None and dtype != self.dtype
        ):
            raise TypeError(
                f"AOTIModel '{self.artifact_root}' is loaded for {self.device}/{self.dtype} and "
                f"cannot be converted to {device or self.device}/{dtype or self.dtype}; load the "
                f"compiled leaf you need (load_model(..., device=, dtype=) or neml2-run "
                f"--device/--dtype)"
            )
        return self

    # ------------------------------------------------------------------ calling
    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> tuple[Any, ...]:
        """Evaluate the compiled forward; returns a tuple of typed outputs."""
        if v is not None or v2 is not None or vh is not None:
            raise TypeError(
                f"{self._label()}: a compiled model takes no v=/v2=/vh= tangents; use jacobian() "
                f"or jvp() (the derivative pairs compiled with neml2-compile -d OUT:IN)"
            )
        if len(args) != len(self._in_vars):
            names = list(self.input_spec)
            raise TypeError(
                f"{self._label()}: expected {len(names)} positional input(s) {names}, got {len(args)}"
            )
        raw, dyn = self._unwrap(args)
        return tuple(self._wrap_outputs(self._inner.forward(raw), dyn).values())

    def __call__(self, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Same as :meth:`forward` (no module hooks: the call path stays thin)."""
        return self.forward(*args, **kwargs)

    def call_by_name(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Evaluate from ``{input name: value}``; returns ``{output name: wrapper}``."""
        raw, dyn = self._unwrap(self._pick(state))
        return self._wrap_outputs(self._inner.forward(raw), dyn)

    def value(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Same as :meth:`call_by_name`."""
        return self.call_by_name(state)

    def jvp(
        self, inputs: Mapping[str, Any], tangents: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, {output: directional derivative})`` over the compiled pairs (typed)."""
        raw, dyn = self._unwrap(self._pick(inputs))
        tan = {n: (t.data if isinstance(t, TensorWrapper) else t) for n, t in tangents.items()}
        unknown = sorted(set(tan) - set(self.input_spec))
        if unknown:
            raise KeyError(f"{self._label()}: tangents given for non-input variable(s) {unknown}")
        outs, douts = self._inner.jvp(raw, tan)
        return self._wrap_outputs(outs, dyn), self._wrap_outputs(douts, dyn)

    def jacobian(self, inputs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, J)`` with ``J[out][in]`` a tensor ``(*batch, *out_base, *in_base)``; for
        sub-batched variables py-eager's layout (``Model.jacobian_block_shape`` of the runtime)."""
        raw, dyn = self._unwrap(self._pick(inputs))
        outs, J = self._inner.jacobian(raw)
        return self._wrap_outputs(outs, dyn), J

    def param_jacobian(
        self, inputs: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, dict[str, torch.Tensor]]]:
        """``(outputs, P)`` with ``P[out][param]`` blocks ``(*batch, *out_base, *param_base)``
        (compiled pairs), as NEML2 v3."""
        raw, dyn = self._unwrap(self._pick(inputs))
        outs, P = self._inner.param_jacobian(raw)
        return self._wrap_outputs(outs, dyn), P

    def param_vjp(
        self, inputs: Mapping[str, Any], cotangents: Mapping[str, Any]
    ) -> dict[str, torch.Tensor]:
        """``Σ_batch <cotangent, d out / d param>`` per compiled parameter."""
        raw, _ = self._unwrap(self._pick(inputs))
        cot = {n: (c.data if isinstance(c, TensorWrapper) else c) for n, c in cotangents.items()}
        return self._inner.param_vjp(raw, cot)

    # ------------------------------------------------------------------ parameters
    def named_parameters(  # type: ignore[override]
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, torch.Tensor]]:
        """Promoted parameters as ``(name, tensor)``; the tensors are the runtime's slots."""
        for name, value in self._inner.named_parameters().items():
            yield (f"{prefix}.{name}" if prefix else name), value

    def parameter_base_shapes(self) -> dict[str, tuple[int, ...]]:
        """Promoted parameter name → base shape of its tensor type."""
        return {n: tuple(s) for n, s in self._inner.parameter_base_shapes.items()}

    def set_parameter(self, name: str, value: Any) -> None:
        """Replace a promoted parameter (typed wrappers are unwrapped; no cast)."""
        data = value.data if isinstance(value, TensorWrapper) else value
        self._inner.set_parameter(name, data)

    def set_solver_config(self, **config: Any) -> None:
        """Newton settings of the implicit segments (see :meth:`neml2.aoti.Model.set_solver_config`)."""
        self._inner.set_solver_config(**config)

    # ------------------------------------------------------------------ helpers
    def _label(self) -> str:
        return f"AOTIModel '{self._hit_name or self.artifact_root}'"

    def _pick(self, state: Mapping[str, Any]) -> list[Any]:
        missing = [n for n in self.input_spec if n not in state]
        if missing:
            raise KeyError(
                f"{self._label()}: missing input variable(s) {missing} "
                f"(inputs: {list(self.input_spec)})"
            )
        return [state[n] for n in self.input_spec]

    def _unwrap(self, values: Sequence[Any]) -> tuple[dict[str, torch.Tensor], tuple[int, ...]]:
        """Raw tensors (checked for type, device, dtype) broadcast to a common dynamic batch."""
        device, dtype = self._device, self._dtype
        raw: dict[str, torch.Tensor] = {}
        dyns: list[tuple[int, ...]] = []
        for (name, cls, sub), x in zip(self._in_vars, values, strict=True):
            if type(x) is cls:
                data, nsub = x.data, x.sub_batch_ndim
            elif isinstance(x, torch.Tensor):
                data, nsub = x, len(sub)
            else:
                got = type(x).__name__
                raise TypeError(
                    f"{self._label()}: input '{name}' is a {got}, expected a {cls.__name__}"
                    + ("" if isinstance(x, TensorWrapper) else " or a torch.Tensor")
                )
            if data.dtype != dtype or not _same_device(data.device, device):
                raise TypeError(
                    f"{self._label()}: input '{name}' is {data.dtype} on {data.device}, but the "
                    f"artifact is loaded for {dtype} on {device} (no silent cast: convert the "
                    f"input, or load the leaf you need with load_model(..., device=, dtype=) / "
                    f"neml2-run --device/--dtype)"
                )
            ndyn = data.dim() - nsub - cls.BASE_NDIM
            if ndyn < 0:
                raise ValueError(
                    f"{self._label()}: input '{name}' of shape {list(data.shape)} is too small "
                    f"for a {cls.__name__} with {nsub} sub-batch dim(s)"
                )
            raw[name] = data
            dyns.append(tuple(data.shape[:ndyn]))
        dyn = dyns[0] if dyns else ()
        if any(d != dyn for d in dyns):
            dyn = tuple(_broadcast_shapes(*dyns))
            for (name, x), d in zip(raw.items(), dyns, strict=True):
                if d != dyn:
                    raw[name] = x.expand((*dyn, *x.shape[len(d) :]))
        return raw, dyn

    def _wrap_outputs(
        self, values: Mapping[str, torch.Tensor], dyn: tuple[int, ...]
    ) -> dict[str, Any]:
        """Typed outputs; a batch-less call gets its inserted size-1 batch axis removed."""
        out: dict[str, Any] = {}
        for (name, cls), sub in zip(self.output_spec.items(), self._out_sub, strict=True):
            y = values.get(name)
            if y is None:
                continue
            if not dyn and y.dim() == len(sub) + cls.BASE_NDIM + 1 and y.shape[0] == 1:
                y = y[0]
            nsub = y.dim() - len(dyn) - cls.BASE_NDIM
            out[name] = cls._wrap(y, max(nsub, 0))
        return out

    def extra_repr(self) -> str:
        return f"artifact_path='{self.artifact_root}', device={self.device}, dtype={self.dtype}"
