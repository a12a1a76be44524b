"""``Model``: base class of every constitutive model (a ``torch.nn.Module``).

A leaf declares ``hit = HitSchema(...)``; the base class derives ``input_spec``/``output_spec``
(variable name → wrapper type, ordered as ``forward``'s arguments / return values) and builds it
from HIT. ``forward(*inputs, *promoted, v=None[, v2=None, vh=None])`` returns the outputs (one
output: a bare wrapper) and, with ``v``, appends the pushed-forward tangents ``v_out`` (then
``v2_out``, ``vh_out``); see :mod:`neml2.models.chain_rule`.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch
from torch import nn

from neml2 import _guard
from neml2.jit import _trace
from neml2.models import _derivatives, _jacobian, ad
from neml2.models._deferred import deferring, deferring_allowed, materialize_all
from neml2.models._names import check_variable_names
from neml2.models._params import NLParam, PromotedParam, resolve_constant, resolve_provider
from neml2.models._store import store_schema_values
from neml2.models._typed import as_type, broadcast
from neml2.models.chain_rule import (
    ChainRuleAction,
    ChainRuleDict,
    SecondOrderChainRuleAction,
    SecondOrderChainRuleDict,
    TangentAction,
    apply_chain_rule,
    apply_chain_rule_2,
    propagate_tangents,
)
from neml2.schema import HitSchema
from neml2.tensors import TensorWrapper
from neml2.tensors.hooks import apply_environment_opt_in

apply_environment_opt_in()  # NEML2_KEEP_LARGE_ALLOCATIONS=1: reuse batch-sized heap buffers

__all__ = [
    "ChainRuleAction",
    "ChainRuleDict",
    "Model",
    "NLParam",
    "PromotedParam",
    "SecondOrderChainRuleAction",
    "SecondOrderChainRuleDict",
    "TangentAction",
    "register_submodule",
]


class Model(nn.Module):
    """Base class of neml2 models with named, typed input and output variables."""

    SECTION: ClassVar[str] = "Models"
    hit: ClassVar[HitSchema | None] = None
    # class-level defaults (from the schema); every instance holds its own resolved copies
    input_spec: dict[str, Any] = {}  # noqa: RUF012
    output_spec: dict[str, Any] = {}  # noqa: RUF012
    output_priorities: dict[str, str | None] = {}  # noqa: RUF012
    SUPPORTS_SECOND_ORDER: bool = False
    ACCEPTS_DEFERRED_TANGENTS: ClassVar[bool] = False
    """``forward`` hands every tangent it receives (and gets from models it calls) only to the
    chain-rule helpers, and its actions are pointwise, so deferred tangent sums may reach it (see
    :mod:`neml2.models._deferred`); other models get them evaluated."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        schema = cls.__dict__.get("hit")
        if schema is not None:
            ins = ("input", "derived_input", "var_inputs")
            outs = ("output", "derived_output")
            cls.input_spec = {f.name: f.type for f in schema if f.kind in ins}
            cls.output_spec = {f.name: f.type for f in schema if f.kind in outs}
            cls.output_priorities = {f.name: f.priority for f in schema if f.kind in outs}

    def __init__(self, **hit_values: Any) -> None:
        super().__init__()
        factory = hit_values.pop("factory", None)
        block = hit_values.pop("_hit_name", None)
        self._hit_name: str | None = block
        self._var_renames: dict[str, str] = {}
        self._nl_params: dict[str, NLParam] = {}
        self._param_alias: dict[str, str] = {}
        #: storage name of a parameter or buffer -> the HIT option of this model's block that set
        #: it (a list option sets several); absent for one declared by other code
        self._param_options: dict[str, str] = {}
        self._param_types: dict[str, Any] = {}
        self._pfast: dict[str, tuple[Any, ...]] = {}  # _get_param cache
        self._ad_inputs: tuple[str, ...] = ()
        self._ad_outputs: tuple[str, ...] = ()
        self.input_spec = dict(type(self).input_spec)
        self.output_spec = dict(type(self).output_spec)
        self.output_priorities = dict(type(self).output_priorities)
        if type(self).hit is not None:
            store_schema_values(self, dict(hit_values), factory, block)
        elif hit_values:
            raise TypeError(
                f"{type(self).__name__}: unexpected constructor argument(s) {sorted(hit_values)}"
            )
        self.__post_init__()
        check_variable_names((*self.input_spec, *self.output_spec), hit_values)

    def __post_init__(self) -> None:
        """Hook run after the schema values are stored (e.g. to call :meth:`request_AD`)."""

    def _store_schema_values(self, values: Mapping[str, Any], factory: Any = None) -> None:
        """(Re)apply schema values; rebuilds the specs (dynamic-I/O models)."""
        store_schema_values(self, dict(values), factory, self._hit_name)

    # ------------------------------------------------------------------ construction from HIT
    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Construct from a HIT block through the class's :class:`HitSchema`."""
        from neml2.factory import kwargs_from_hit

        kwargs = kwargs_from_hit(cls, node, factory)
        return cls(**kwargs, factory=factory, _hit_name=node.name)

    # ------------------------------------------------------------------ parameters and buffers
    def register_typed_parameter(self, name: str, value: TensorWrapper) -> None:
        """Register ``value`` as an ``nn.Parameter`` named ``name`` (type kept for reads).

        A name that is also a class attribute (v3's ``value`` of the ``*ConstantParameter``
        types vs :meth:`value`) goes straight into ``_parameters``: ``named_parameters``,
        ``state_dict`` and ``functional_call`` see it; attribute access keeps the class member.
        """
        param = nn.Parameter(value.data.detach().clone())
        if hasattr(type(self), name) and name not in self._parameters:
            self._check_storage_name(name)
            self._parameters[name] = param
        else:
            self.register_parameter(name, param)
        self._param_types[name] = (type(value), value.sub_batch_ndim)
        self._pfast.clear()

    def register_typed_buffer(
        self, name: str, value: TensorWrapper, persistent: bool = True
    ) -> None:
        """Register ``value`` as a buffer (a constant, no autograd); names as for parameters."""
        data = value.data.detach().clone()
        if hasattr(type(self), name) and name not in self._buffers:
            self._check_storage_name(name)
            self._buffers[name] = data
            if not persistent:
                self._non_persistent_buffers_set.add(name)
        else:
            self.register_buffer(name, data, persistent=persistent)
        self._param_types[name] = (type(value), value.sub_batch_ndim)
        self._pfast.clear()

    def remove_typed_parameter(self, name: str) -> None:
        """Forget parameter ``name`` (e.g. construction inputs a model converts and stores under
        other names); a promoted (variable) parameter cannot be removed."""
        if name in self._nl_params:
            raise ValueError(f"parameter '{name}' is a variable and cannot be removed")
        del self._parameters[name]
        self._param_types.pop(name, None)
        self._pfast.clear()

    def _check_storage_name(self, name: str) -> None:
        """Refuse a storage name that is already a parameter, buffer or submodule."""
        taken = (self._parameters, self._buffers, self._modules)
        if "." in name or any(name in t for t in taken):
            raise KeyError(f"{type(self).__name__}: cannot store a tensor as '{name}'")

    def declare_typed_parameter(
        self,
        name: str,
        spec: Any,
        type_cls: Any,
        *,
        factory: Any = None,
        allow_nonlinear: bool = False,
    ) -> None:
        """Resolve ``spec`` (literal → ``[Tensors]`` → ``model[.var]`` → bare variable)."""
        what = f"parameter '{name}'"
        value = resolve_constant(spec, type_cls, factory, what)
        if value is not None:
            self.register_typed_parameter(name, value)
            return
        if not allow_nonlinear:
            raise ValueError(
                f"{what}: cannot resolve spec {spec!r} as a literal or [Tensors] entry, and "
                f"variable coupling is not enabled for this parameter"
            )
        prov = resolve_provider(spec, factory, what)
        provider, out = prov if prov is not None else (None, None)
        input_name = out if out is not None else spec.strip()
        if not input_name or len(input_name.split()) != 1:
            raise ValueError(f"{what}: {spec!r} is not a variable name")
        used = {p.input_name: p.tail_index for p in self._nl_params.values()}
        if input_name in used:
            tail = used[input_name]
        elif input_name in self.input_spec:
            raise ValueError(f"{what}: variable '{input_name}' is already an input of this model")
        else:
            tail = len(used)
            self.input_spec[input_name] = type_cls
        self._nl_params[name] = NLParam(input_name, tail, provider, out)
        self._param_types[name] = (type_cls, 0)
        self._pfast.clear()

    def declare_typed_buffer(
        self, name: str, spec: Any, type_cls: Any, *, factory: Any = None
    ) -> None:
        """Resolve ``spec`` as a literal or ``[Tensors]`` entry and register a typed buffer."""
        value = resolve_constant(spec, type_cls, factory, f"buffer '{name}'")
        if value is None:
            raise ValueError(
                f"buffer '{name}': cannot resolve spec {spec!r} as a literal or [Tensors] entry"
            )
        self.register_typed_buffer(name, value)

    def _get_param(self, name: str, promoted: Sequence[Any] = (), type_cls: Any = None) -> Any:
        """Typed value of parameter/buffer ``name`` (from ``promoted`` if it was promoted).

        Hot path: one cache entry per name; the wrapper is rebuilt only when the stored
        ``nn.Parameter``/buffer object was replaced (``set_parameter``, ``.to()``,
        ``functional_call``); in-place data changes are seen through the wrapper.
        """
        e = self._pfast.get(name)
        if e is not None:
            if e[0] >= 0:
                return promoted[e[0]]
            if e[1].get(e[2]) is e[3]:
                return e[4]
        return self._get_param_slow(name, promoted)

    def _get_param_slow(self, name: str, promoted: Sequence[Any]) -> Any:
        key = self._param_alias.get(name, name)
        nl = self._nl_params.get(key)
        if nl is not None:
            self._pfast[name] = (nl.tail_index, None, None, None, None)
            return promoted[nl.tail_index]
        store: dict[str, Any] = self._parameters if key in self._parameters else self._buffers
        p = store.get(key)
        if key not in self._param_types:
            raise KeyError(f"{type(self).__name__}: no parameter or buffer '{name}'")
        cls, sub = self._param_types[key]
        w = cls._wrap(p, sub)
        self._pfast[name] = (-1, store, key, p, w)
        return w

    def _get_param_list(self, names: Sequence[str], promoted: Sequence[Any] = ()) -> list[Any]:
        """Typed values of several parameters (see :meth:`_get_param`)."""
        return [self._get_param(n, promoted) for n in names]

    def output_sub_batch(self) -> dict[str, tuple[int, ...]]:
        """Sub-batch shapes this model gives outputs whatever its inputs carry (e.g. the slip
        systems a crystal-plasticity model introduces): ``{output variable: shape}``.

        Default: those its submodels report for variables that are outputs here. A model that
        creates a sub-batch axis overrides this (the compiled routes size their outputs by it).
        """
        out: dict[str, tuple[int, ...]] = {}
        for child in self.children():
            if isinstance(child, Model):
                for name, shape in child.output_sub_batch().items():
                    if name in self.output_spec:
                        out[name] = shape
        return out

    @property
    def hit_name(self) -> str | None:
        """Name of the ``[Models]`` block this model was built from (``None`` when built in code)."""
        return self._hit_name

    def parameter_option(self, name: str) -> str | None:
        """The option of this model's HIT block that set its parameter or buffer ``name`` (its
        storage name; a list option sets several), or ``None`` when other code declared it."""
        return self._param_options.get(name)

    def parameter_type(self, name: str) -> type[TensorWrapper] | None:
        """The neml2 tensor type of this model's parameter or buffer ``name`` (its storage name),
        or ``None`` for a plain tensor."""
        entry = self._param_types.get(name)
        return None if entry is None else entry[0]

    def clear_value_caches(self) -> None:
        """Drop this model's cached typed parameter views (rebuilt on the next read), e.g. so
        that no value of a graph capture (``torch.export``) survives it."""
        self._pfast.clear()

    def promoted_input(self, name: str) -> str | None:
        """Input variable a promoted parameter reads (``None`` if ``name`` is a real parameter)."""
        nl = self._nl_params.get(self._param_alias.get(name, name))
        return None if nl is None else nl.input_name

    @property
    def nl_params(self) -> dict[str, NLParam]:
        """Promoted parameters (attribute → :class:`NLParam`)."""
        return self._nl_params

    def named_typed_parameters(self) -> dict[str, Any]:
        """Qualified name → typed value of every (non-promoted) parameter in the tree."""
        out: dict[str, Any] = {}
        for prefix, mod in self.named_modules():
            if isinstance(mod, Model):
                for n in mod._parameters:
                    out[f"{prefix}.{n}" if prefix else n] = mod._get_param(n)
        return out

    def parameter_base_shapes(self) -> dict[str, tuple[int, ...]]:
        """Qualified parameter name → base shape of its tensor type."""
        out: dict[str, tuple[int, ...]] = {}
        for prefix, mod in self.named_modules():
            if isinstance(mod, Model):
                for n in mod._parameters:
                    out[f"{prefix}.{n}" if prefix else n] = tuple(mod._param_types[n][0].BASE_SHAPE)
        return out

    def parameter_name(self, qname: str) -> str:
        """The name ``named_parameters()``/``named_buffers()`` report for tensor ``qname``.

        ``qname`` is that name, or an alias: the option key as leaf (``isoharden.saturated_hardening``
        for v3's ``isoharden.R``; list items ``<key>_<i>``) and/or another path to a submodule
        shared by several composed models (reported under its first path in ``named_modules()``).
        Raises ``KeyError`` when ``qname`` names no parameter or buffer.
        """
        mod_path, _, leaf = qname.rpartition(".")
        try:
            mod = self.get_submodule(mod_path) if mod_path else self
        except AttributeError:
            mod = None
        if isinstance(mod, Model):
            leaf = mod._param_alias.get(leaf, leaf)
        if mod is None or (leaf not in mod._parameters and leaf not in mod._buffers):
            known = [n for n, _ in self.named_parameters()]
            raise KeyError(f"no parameter '{qname}' (parameters: {known})")
        path = next(p for p, m in self.named_modules() if m is mod)
        return f"{path}.{leaf}" if path else leaf

    def set_parameter(self, qname: str, value: Any) -> None:
        """Set a parameter (name or :meth:`parameter_name` alias); copy in place if broadcastable.

        A value that does not broadcast to the stored shape replaces the parameter.
        """
        try:
            mod_path, _, attr = self.parameter_name(qname).rpartition(".")
        except KeyError as e:
            raise KeyError(f"set_parameter: {e.args[0]}") from None
        mod = self.get_submodule(mod_path) if mod_path else self
        p = mod._parameters.get(attr)
        if p is None:
            raise KeyError(f"set_parameter: '{qname}' is a buffer, not a parameter")
        if isinstance(value, TensorWrapper):
            value = value.data
        # a Python number goes straight to the parameter's dtype (never through float32)
        data = torch.as_tensor(value, dtype=p.dtype, device=p.device)
        try:
            ok = broadcast(data.shape, p.shape) == tuple(p.shape)
        except RuntimeError:
            ok = False
        with torch.no_grad():
            if ok:
                p.copy_(data)
            else:
                mod._parameters[attr] = nn.Parameter(data.clone(), requires_grad=p.requires_grad)

    # ------------------------------------------------------------------ calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Evaluate the model (subclasses implement)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement forward()")

    def __call__(
        self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None, **kwargs: Any
    ) -> Any:
        for arg, cls in zip(args, self.input_spec.values(), strict=False):
            if type(arg) is not cls:
                args = self._typed_args(args)
                break
        if _guard.STRICT:
            return _guard.call_strict(self, self._dispatch, *args, v=v, v2=v2, vh=vh, **kwargs)
        if v is None and v2 is None and vh is None and not deferring_allowed():
            return self.forward(*args, **kwargs)
        return self._dispatch(*args, v=v, v2=v2, vh=vh, **kwargs)

    def _dispatch(self, *args: Any, v: Any, v2: Any, vh: Any, **kwargs: Any) -> Any:
        """:meth:`_route` the call, with deferred tangents evaluated first unless this model
        accepts them (``ACCEPTS_DEFERRED_TANGENTS``, not through ``request_AD``)."""
        if deferring_allowed() and (
            v is None or self._ad_inputs or not self.ACCEPTS_DEFERRED_TANGENTS
        ):
            v, v2, vh = materialize_all(v, v2, vh)
            with deferring(False):
                return self._route(*args, v=v, v2=v2, vh=vh, **kwargs)
        return self._route(*args, v=v, v2=v2, vh=vh, **kwargs)

    def _route(self, *args: Any, v: Any, v2: Any, vh: Any, **kwargs: Any) -> Any:
        """Route a call: plain forward, AD pushforward (``request_AD``), or v/v2/vh forward."""
        if v is None:
            if v2 is not None or vh is not None:
                raise ValueError(f"{type(self).__name__}: v2/vh passed without v")
            return self.forward(*args, **kwargs)
        if v2 is None and vh is None:
            if self._ad_inputs:
                return ad.ad_pushforward(self, args, v)
            return self.forward(*args, v=v, **kwargs)
        if not self.SUPPORTS_SECOND_ORDER:
            raise RuntimeError(
                f"{type(self).__name__} ({self._hit_name}) does not support second-order "
                f"tangents (SUPPORTS_SECOND_ORDER is False)"
            )
        return self.forward(*args, v=v, v2=v2, vh=vh, **kwargs)

    def _typed_args(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Positional arguments of a call as the wrappers of :attr:`input_spec` (in its order):
        raw tensors and numbers are wrapped, a wrapper of another type is a ``TypeError`` naming
        the input, the expected and the given type."""
        out = list(args)
        for k, (name, cls) in enumerate(self.input_spec.items()):
            if k == len(out):
                break
            if isinstance(cls, type) and not isinstance(out[k], cls):
                what = f"{type(self).__name__} ({self._hit_name}): input {k} '{name}'"
                out[k] = as_type(cls, out[k], what=what)
        return tuple(out)

    def wrap_inputs(self, state: Mapping[str, Any]) -> list[Any]:
        """Positional arguments for ``forward`` from a name-keyed mapping (wrapping raw tensors)."""
        if not isinstance(state, Mapping):
            raise TypeError(
                f"{type(self).__name__} ({self._hit_name}): the inputs must be a mapping "
                f"{{input name: value}} over {list(self.input_spec)}, got {type(state).__name__}"
            )
        args = []
        for name, cls in self.input_spec.items():
            if name not in state:
                raise KeyError(
                    f"{type(self).__name__} ({self._hit_name}): missing input variable '{name}' "
                    f"(inputs: {list(self.input_spec)})"
                )
            args.append(as_type(cls, state[name], what=f"input variable '{name}'"))
        return args

    def call_by_name(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Evaluate from ``{input name: value}``; returns ``{output name: wrapper}``."""
        res = self(*self.wrap_inputs(state))
        if not isinstance(res, tuple):
            res = (res,)
        return dict(zip(self.output_spec, res, strict=True))

    def value(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Same as :meth:`call_by_name` (through a traced graph when tracing is on).

        Tracing (``NEML2_JIT_TRACE=1`` or :func:`neml2.jit.set_tracing`) is off by default; see
        :mod:`neml2.jit._trace`.
        """
        if _trace.tracing_enabled():
            return _trace.traced_value(self, state)
        return self.call_by_name(state)

    def jvp(
        self, inputs: Mapping[str, Any], tangents: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, {output: directional derivative})``; missing tangents count as zero."""
        return _derivatives.jvp(self, inputs, tangents)

    def jacobian(self, inputs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(outputs, J)`` with ``J[out][in]`` a ``Tensor`` ``(*batch, *sub, *out_base, *in_base)``.

        Sub-batch reductions/differences (and site mixing) give the full per-site block
        ``(*batch, *out_sub, *out_base, *in_sub, *in_base)``; see :mod:`neml2.models._jacobian`.
        Dynamic-batch reductions raise ``ValueError`` (use :meth:`jvp`).
        """
        return _jacobian.jacobian(self, inputs)

    # ------------------------------------------------------------------ chain rule helpers
    def apply_chain_rule(
        self,
        v: Mapping[str, Mapping[str, Any]],
        output_name: str,
        actions: Mapping[str, ChainRuleAction],
        *,
        output: TensorWrapper | None = None,
    ) -> ChainRuleDict:
        """See :func:`neml2.models.chain_rule.apply_chain_rule` (option names translated)."""
        return apply_chain_rule(
            v,
            output_name,
            actions,
            output=output,
            renames=self._var_renames,
            types=self.input_spec,
        )

    def apply_chain_rule_2(
        self,
        v: Mapping[str, Mapping[str, Any]],
        v2: Any,
        output_name: str,
        actions_1: Mapping[str, ChainRuleAction],
        actions_2: Mapping[tuple[str, str], SecondOrderChainRuleAction] | None,
        vh: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        output: TensorWrapper | None = None,
    ) -> SecondOrderChainRuleDict:
        """See :func:`neml2.models.chain_rule.apply_chain_rule_2`."""
        return apply_chain_rule_2(
            v, v2, output_name, actions_1, actions_2, vh, output=output, renames=self._var_renames
        )

    def propagate_tangents(
        self,
        v: Mapping[str, Mapping[str, Any]],
        output_name: str,
        actions_1: Mapping[str, ChainRuleAction],
        *,
        output: TensorWrapper | None = None,
        v2: Any = None,
        actions_2: Mapping[tuple[str, str], SecondOrderChainRuleAction] | None = None,
        vh: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> tuple[Any, ...]:
        """See :func:`neml2.models.chain_rule.propagate_tangents`."""
        return propagate_tangents(
            v,
            output_name,
            actions_1,
            output=output,
            v2=v2,
            actions_2=actions_2,
            vh=vh,
            renames=self._var_renames,
            types=self.input_spec,
        )

    # ------------------------------------------------------------------ AD fallback
    def request_AD(
        self, outputs: Sequence[str] | None = None, inputs: Sequence[str] | None = None
    ) -> None:
        """Compute first derivatives w.r.t. ``inputs`` (default: all structural) by autograd."""
        ad.request_AD(self, outputs, inputs)

    def param_jacobian(
        self, inputs: Mapping[str, Any], params: Sequence[str] | None = None
    ) -> tuple[dict[str, torch.Tensor], dict[str, dict[str, torch.Tensor]]]:
        """Per-batch ``d out / d param`` blocks ``(*batch, *out_base, *param_base)``."""
        return ad.param_jacobian(self, inputs, params)

    def param_vjp(
        self,
        inputs: Mapping[str, Any],
        cotangents: Mapping[str, Any],
        params: Sequence[str] | None = None,
    ) -> dict[str, torch.Tensor]:
        """Reverse mode: ``Σ_batch cot · d out / d param`` per qualified parameter name."""
        return ad.param_vjp(self, inputs, cotangents, params)

    # ------------------------------------------------------------------ printing
    def __str__(self) -> str:
        from neml2.models.summary import summary

        return summary(self)


def register_submodule(
    parent: nn.Module, child: nn.Module, fallback: str, *, used: set[str] | None = None
) -> str:
    """Add ``child`` to ``parent`` under its HIT block name when usable, else ``fallback``.

    The HIT name is used if it is an identifier, not a keyword, not an existing attribute of
    ``parent`` and not in ``used``. Returns the attribute name.
    """
    name = getattr(child, "_hit_name", None)
    ok = (
        isinstance(name, str)
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and not hasattr(parent, name)
        and (used is None or name not in used)
    )
    attr = name if ok and isinstance(name, str) else fallback
    parent.add_module(attr, child)
    if used is not None:
        used.add(attr)
    return attr
