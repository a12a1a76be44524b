"""``ComposedModel``: evaluate several models wired by variable name.

The evaluation plan (child order, argument names, output names) is resolved once at construction
by :class:`~neml2.models.resolver.DependencyResolver`; a call only moves values through a
name → value dict. With ``v`` each child receives the tangents of its own inputs and its
``v_out`` replaces the tangents of its outputs (last writer wins). Always returns a tuple.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model, register_submodule
from neml2.models.resolver import DependencyResolver
from neml2.schema import HitSchema, option
from neml2.tensors import TensorWrapper

__all__ = ["ComposedModel"]


def _providers(models: Sequence[Any]) -> list[Any]:
    """``models`` followed by their mode-3 parameter providers (breadth first, transitive)."""
    seen = {id(m) for m in models}
    out = list(models)
    queue = deque(models)
    while queue:
        m = queue.popleft()
        for p in getattr(m, "_nl_params", {}).values():
            if p.provider is not None and id(p.provider) not in seen:
                seen.add(id(p.provider))
                out.append(p.provider)
                queue.append(p.provider)
    return out


@register_neml2_object("ComposedModel")
class ComposedModel(Model):
    """Compose models into one by matching output and input variable names."""

    ACCEPTS_DEFERRED_TANGENTS = True  # routes tangents; each child gets them as it accepts them

    hit = HitSchema(
        option("models", list, "Models to compose (evaluation order is resolved automatically)"),
        option(
            "additional_outputs",
            list,
            "Intermediate variables to expose as outputs in addition to the resolved ones",
            default=(),
        ),
    )

    models: list[Any]
    additional_outputs: list[str]

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Build the children, then pull in mode-3 parameter providers."""
        from neml2.factory import kwargs_from_hit

        kw = kwargs_from_hit(cls, node, factory)
        models = []
        for n in kw.pop("models"):
            if not factory.has_model(n):
                raise KeyError(f"option 'models': No [Models/{n}] found in {factory.filename}")
            models.append(factory.get_model(n))
        children = _providers(models)
        return cls(models=children, **kw, factory=factory, _hit_name=node.name)

    def __post_init__(self) -> None:
        models = list(self.models)
        for i, m in enumerate(models):
            if not isinstance(m, Model):
                raise TypeError(f"ComposedModel: models[{i}] is a {type(m).__name__}, not a Model")
        res = DependencyResolver(models, list(self.additional_outputs)).resolve()
        # children are registered in evaluation order, as in v3: a submodule shared with a nested
        # model is then reported (named_parameters/named_modules) under its first path in order
        index = {id(m): i for i, m in enumerate(models)}
        ordered = {id(m) for m in res.order}
        rest = [m for m in models if id(m) not in ordered]
        used: set[str] = set()
        for m in [*res.order, *rest]:
            register_submodule(self, m, f"_child_{index[id(m)]}", used=used)
        self.input_spec = dict(res.inputs)
        self.output_spec = dict(res.outputs)
        self.output_priorities = {n: None for n in res.outputs}
        self.SUPPORTS_SECOND_ORDER = all(m.SUPPORTS_SECOND_ORDER for m in models)
        self._order = res.order
        self._plan = [
            (m, tuple(m.input_spec), tuple(m.output_spec), tuple(m.output_spec.values()))
            for m in res.order
        ]
        # value-only plan: (child, input names, sole output name | "", its type | None, ...)
        self._fast_plan = [
            (m, ins, outs[0] if len(outs) == 1 else "", types[0] if len(outs) == 1 else None,
             outs, types)
            for m, ins, outs, types in self._plan
        ]  # fmt: skip
        self._in_names = tuple(res.inputs)
        self._in_types = tuple(res.inputs.values())
        self._out_names = tuple(res.outputs)

    @property
    def order(self) -> list[Any]:
        """Children in evaluation order."""
        return list(self._order)

    def _wrap_args(self, args: tuple[Any, ...]) -> dict[str, Any]:
        if len(args) != len(self._in_names):
            raise TypeError(
                f"ComposedModel ({self._hit_name}): expected {len(self._in_names)} inputs "
                f"{list(self._in_names)}, got {len(args)}"
            )
        vals = dict(zip(self._in_names, args, strict=True))
        for n, t in zip(self._in_names, self._in_types, strict=True):
            if type(vals[n]) is not t:
                vals[n] = t(vals[n])
        return vals

    @staticmethod
    def _store(vals: dict[str, Any], outs: tuple[str, ...], types: tuple[Any, ...], r: Any) -> None:
        if len(outs) == 1 and not isinstance(r, tuple):
            r = (r,)
        for n, t, x in zip(outs, types, r, strict=False):
            if type(x) is not t:
                if not isinstance(x, TensorWrapper):
                    raise TypeError(
                        f"ComposedModel: output '{n}' is a {type(x).__name__}, not a typed wrapper"
                    )
                raise TypeError(
                    f"ComposedModel: output '{n}' is a {type(x).__name__}, not {t.__name__}"
                )
            vals[n] = x

    def forward(self, *args: Any, v: Any = None, v2: Any = None, vh: Any = None) -> Any:
        """Evaluate the children in order; ``(*outputs[, v_out[, v2_out[, vh_out]]])``."""
        vals = self._wrap_args(args)
        if v is None:
            for m, ins, out1, type1, outs, types in self._fast_plan:
                r = m.forward(*[vals[n] for n in ins])
                if type(r) is type1:  # the common single-output case
                    vals[out1] = r
                else:
                    self._store(vals, outs, types, r)
            return tuple([vals[n] for n in self._out_names])
        sens = dict(v)
        sens2 = dict(v2) if v2 is not None else None
        sensh = dict(vh) if vh is not None else None
        nextra = 1 + (sens2 is not None or sensh is not None) + (sensh is not None)
        for m, ins, outs, types in self._plan:
            cargs = [vals[n] for n in ins]
            cv = {n: sens[n] for n in ins if n in sens}
            for n in outs:
                sens.pop(n, None)
                if sens2 is not None:
                    sens2.pop(n, None)
                if sensh is not None:
                    sensh.pop(n, None)
            if not cv and not (sensh and any(n in sensh for n in ins)):
                self._store(vals, outs, types, m(*cargs))
                continue
            if nextra == 1:
                r = m(*cargs, v=cv)
                self._store(vals, outs, types, r[:-1])
                sens.update(r[-1])
                continue
            c2 = {n: sens2[n] for n in ins if n in sens2} if sens2 is not None else {}
            ch = {n: sensh[n] for n in ins if n in sensh} if sensh is not None else None
            r = m(*cargs, v=cv, v2=c2, vh=ch)
            k = 3 if ch is not None else 2
            self._store(vals, outs, types, r[:-k])
            sens.update(r[-k])
            if sens2 is not None:
                sens2.update(r[-k + 1])
            if sensh is not None:
                sensh.update(r[-1])
        res = [vals[n] for n in self._out_names]
        res.append({n: sens[n] for n in self._out_names if n in sens})
        if sens2 is not None or sensh is not None:
            s2 = sens2 or {}
            res.append({n: s2[n] for n in self._out_names if n in s2})
        if sensh is not None:
            res.append({n: sensh[n] for n in self._out_names if n in sensh})
        return tuple(res)
