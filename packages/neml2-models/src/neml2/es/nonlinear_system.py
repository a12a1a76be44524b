r"""``[EquationSystems] type = NonlinearSystem``: residuals of a model as an assembled system.

A model maps unknowns :math:`u` and givens :math:`g` (every other model input) to residuals
:math:`r(u; g)`. The system packs them on :class:`~neml2.es.AxisLayout`\ s (unknown groups from
``unknowns = 'a b; c'``, residual groups mirroring them, givens one trailing dense group) and
assembles, with ONE model call per evaluation,

.. math::  b = -r, \qquad A = \partial r/\partial u, \qquad B = \partial r/\partial g.

Derivatives come from the forward chain rule: at small batch every column group is one seed leaf
whose K axis spans the group (each variable seeded with its slice of an identity: one tangent per
variable in the model); from ``PER_VARIABLE_SEEDS_FROM`` batch entries each unknown (from
``PER_VARIABLE_GIVEN_SEEDS_FROM`` each given of ``B``) is its own leaf (no zero blocks pushed
through the model). The system is a Newton ``CombinedProblem`` (:meth:`residual_and_jacobian`)
and a ``MatrixFreeProblem`` (:meth:`matvec`).

Sub-batch (per-site axes, e.g. slip systems): an unknown's sub-batch shape comes from the values
(or a ``[Settings]`` declaration) and its residual mirrors it. A ``dense`` group folds the sites
into the DOF axis (seeds materialize all sites); a ``block`` group keeps them as batch axes of
per-site blocks (per-site paired seeds), which assumes sites do not couple within the group.
Givens form one trailing dense column group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.es._layout import (
    STRUCTURES,
    AxisGroup,
    AxisLayout,
    Structure,
    VariableInfo,
    broadcast_batch,
)
from neml2.es._matrix import AssembledMatrix, MatrixPart, block_sub
from neml2.es._tangents import conform, extract_block, fit_rest, make_seed
from neml2.es._vector import AssembledVector
from neml2.models._deferred import call_deferring, materialize
from neml2.schema import HitSchema, dependency, option
from neml2.tensors import TensorWrapper
from neml2.tensors.hooks import empty_output, plain_eager

__all__ = ["ModelNonlinearSystem", "NonlinearSystem"]

_FULL = ("full",)
_NONE1 = (None,)


def _groups(value: Any, what: str) -> list[list[str]]:
    """``'a b; c'``, ``[['a', 'b'], ['c']]`` or ``['a', 'b']`` → groups of names."""
    if value is None or value == "" or value == () or value == []:
        return []
    if isinstance(value, str):
        rows = [r.split() for r in value.split(";")]
    elif all(isinstance(v, str) for v in value):
        rows = [[t for v in value for t in v.split()]]
    else:
        rows = [[str(t) for t in r] for r in value]
    if any(not r for r in rows):
        raise ValueError(f"option '{what}': empty group in {value!r}")
    return rows


def _plain(g: AxisGroup) -> bool:
    """A dense group whose variables have no sub-batch axes."""
    return not g.is_block and all(not v.sub_batch_shape for v in g.variables)


def _flat_structures(value: Any) -> list[str]:
    if value is None or value == "" or value == ():
        return []
    if isinstance(value, str):
        return value.split()
    return [str(t) for t in value]


class ModelNonlinearSystem:
    """Residuals ``r(u; g)`` of a model with unknowns ``u``; assembles ``b = -r``, ``A``, ``B``."""

    SECTION: ClassVar[str] = "EquationSystems"
    #: batch size from which ``A`` is seeded per variable rather than per group: fewer Python
    #: operations and fewer, larger tensor ops favour one K-wide leaf per group; at large batch,
    #: per-variable K (no zero blocks pushed through the model) wins. Chaboche step, one thread:
    #: per group 95 / 219 / 609 ms at 10^3 / 3·10^3 / 10^4 points (per variable 102 / 231 /
    #: 634), per variable 1.74 / 5.86 s at 3·10^4 / 10^5 (per group 1.89 / 7.12)
    PER_VARIABLE_SEEDS_FROM: ClassVar[int] = 16384
    #: the same for the givens' columns of ``B`` (the IFT): there the group is wide (every given
    #: component) and mostly pushed through the model as zeros, so per variable wins early
    PER_VARIABLE_GIVEN_SEEDS_FROM: ClassVar[int] = 256
    hit: ClassVar[HitSchema] = HitSchema(
        dependency("model", "get_model", "Model computing the residuals"),
        option("unknowns", list[list[str]], "Unknown variables; ';' separates unknown groups"),
        option(
            "residuals", list[list[str]],
            "Residual variables, grouped like 'unknowns' (default: '<unknown>_residual')",
            default="",
        ),
        option(
            "structure", list,
            "Per unknown group: 'dense' (sub-batch folded into the DOF axis) or 'block' "
            "(sub-batch kept as batch axes); default dense",
            default="",
        ),
    )  # fmt: skip

    def __init__(
        self,
        model: Any,
        unknowns: Any,
        residuals: Any = "",
        structure: Any = "",
    ) -> None:
        from neml2.models.model import Model

        if not isinstance(model, Model):
            raise TypeError(f"option 'model': expected a model, got {type(model).__name__}")
        self.model = model
        ugroups = _groups(unknowns, "unknowns")
        if not ugroups:
            raise ValueError("option 'unknowns': at least one unknown variable is required")
        rgroups = _groups(residuals, "residuals")
        if not rgroups:
            rgroups = [[f"{u}_residual" for u in g] for g in ugroups]
        if [len(g) for g in rgroups] != [len(g) for g in ugroups]:
            raise ValueError(
                f"option 'residuals': groups {rgroups} do not match the unknown groups {ugroups} "
                f"(same number of groups and of variables per group required)"
            )
        structs = _flat_structures(structure) or ["dense"] * len(ugroups)
        if len(structs) != len(ugroups):
            raise ValueError(
                f"option 'structure': {len(structs)} entries {structs} for {len(ugroups)} "
                f"unknown group(s)"
            )
        for s in structs:
            if s not in STRUCTURES:
                raise ValueError(f"option 'structure': expected 'dense' or 'block', got {s!r}")
        ins, outs = model.input_spec, model.output_spec
        for g in ugroups:
            for u in g:
                if u not in ins:
                    raise KeyError(
                        f"option 'unknowns': '{u}' is not an input of model "
                        f"'{model._hit_name}' (inputs: {list(ins)})"
                    )
        for g in rgroups:
            for r in g:
                if r not in outs:
                    raise KeyError(
                        f"option 'residuals': '{r}' is not an output of model "
                        f"'{model._hit_name}' (outputs: {list(outs)})"
                    )
        names = [u for g in ugroups for u in g]
        if len(set(names)) != len(names):
            raise ValueError(f"option 'unknowns': duplicate variable in {ugroups}")
        self.unknown_groups = ugroups
        self.residual_groups = rgroups
        self.structures: list[Structure] = structs  # type: ignore[assignment]
        self.unknown_names: tuple[str, ...] = tuple(names)
        self.residual_names: tuple[str, ...] = tuple(r for g in rgroups for r in g)
        self.given_names: tuple[str, ...] = tuple(n for n in ins if n not in set(names))
        self.types: dict[str, Any] = {**dict(ins), **{r: outs[r] for r in self.residual_names}}
        self.declared_sub: dict[str, tuple[int, ...]] = {}
        self._layouts: dict[tuple[Any, ...], tuple[AxisLayout, AxisLayout]] = {}
        self._given_layouts: dict[tuple[Any, ...], AxisLayout] = {}
        self._givens: dict[str, TensorWrapper] = {}
        self._seeds: dict[tuple[Any, ...], dict[str, tuple[str, TensorWrapper]]] = {}
        self._last: tuple[AssembledVector, AssembledMatrix] | None = None
        self._seed_per_variable = False
        self.residual_evaluations = 0
        self.set_unknown_sub_batch({})

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Build from ``[EquationSystems/<name>]`` (``[Settings]`` sub-batch declarations kept)."""
        from neml2.factory import kwargs_from_hit

        kw = kwargs_from_hit(cls, node, factory)
        kw["model"] = factory.get_model(kw["model"])
        system = cls(**kw)
        for n in (*system.unknown_names, *system.given_names):
            sub = factory.settings.sub_batch_shape(n)
            if sub is not None:
                system.declared_sub[n] = tuple(sub)
        return system

    # ------------------------------------------------------------------ layouts and state
    def set_unknown_sub_batch(self, subs: Mapping[str, tuple[int, ...]]) -> None:
        """Select the layouts for the unknowns' sub-batch shapes (residuals mirror them)."""
        key = tuple(tuple(subs.get(u, ())) for u in self.unknown_names)
        lay = self._layouts.get(key)
        if lay is None:
            sub = dict(zip(self.unknown_names, key, strict=True))

            def groups(names: Sequence[Sequence[str]], of: Sequence[Sequence[str]]) -> AxisLayout:
                out = []
                for g, ug, st in zip(names, of, self.structures, strict=True):
                    infos = tuple(
                        VariableInfo(n, tuple(self.types[n].BASE_SHAPE), sub[u])
                        for n, u in zip(g, ug, strict=True)
                    )
                    try:
                        out.append(AxisGroup(infos, st))
                    except ValueError as e:
                        raise ValueError(f"NonlinearSystem: unknown group {list(ug)}: {e}") from e
                return AxisLayout(out)

            lay = (
                groups(self.unknown_groups, self.unknown_groups),
                groups(self.residual_groups, self.unknown_groups),
            )
            self._layouts[key] = lay
        self.unknown_layout, self.residual_layout = lay

    def given_layout(self, names: Sequence[str] | None = None) -> AxisLayout:
        """One dense group of the given variables ``names`` (default: all givens)."""
        names = tuple(self.given_names if names is None else names)
        for n in names:
            if n not in self.given_names:
                raise KeyError(f"NonlinearSystem: '{n}' is not a given variable")
        subs = tuple(tuple(self._givens[n].sub_batch_shape) if n in self._givens else ()
                     for n in names)  # fmt: skip
        key = (names, subs)
        lay = self._given_layouts.get(key)
        if lay is None:
            infos = tuple(
                VariableInfo(n, tuple(self.types[n].BASE_SHAPE), s)
                for n, s in zip(names, subs, strict=True)
            )
            lay = AxisLayout([AxisGroup(infos, "dense")])
            self._given_layouts[key] = lay
        return lay

    def initialize(self, givens: Mapping[str, Any]) -> None:
        """Set the given variables (typed wrappers or raw tensors) for the next evaluations.

        Givens declared with a sub-batch in ``[Settings]`` are conformed to it.
        """
        missing = [n for n in self.given_names if n not in givens]
        if missing:
            raise KeyError(f"NonlinearSystem: missing given variable(s) {missing}")
        vals: dict[str, TensorWrapper] = {}
        for n in self.given_names:
            x = givens[n]
            cls = self.types[n]
            w = x if type(x) is cls else cls(x)
            declared = self.declared_sub.get(n)
            vals[n] = w if declared is None else conform(n, w, declared)
        self._givens = vals
        self._last = None

    @property
    def givens(self) -> dict[str, TensorWrapper]:
        """The current given values."""
        return self._givens

    def pack_unknowns(self, values: Mapping[str, Any]) -> AssembledVector:
        """Pack unknown values (wrappers or raw ``(*B, *sub, *base)`` tensors)."""
        raw = {}
        for n in self.unknown_names:
            x = values[n]
            if isinstance(x, TensorWrapper):
                x = conform(n, x, self.unknown_layout.variable(n).sub_batch_shape).data
            raw[n] = x
        u = AssembledVector.pack(self.unknown_layout, raw)
        shapes = [x.dynamic_batch_shape for x in self._givens.values()]
        if shapes:
            batch = broadcast_batch(u.batch_shape, *shapes)
            if batch != u.batch_shape:
                u = AssembledVector._new(
                    u.layout,
                    tuple(
                        t.expand(batch + t.shape[t.dim() - g.trailing_ndim :])
                        for g, t in zip(u.layout.groups, u.tensors, strict=True)
                    ),
                )
        return u

    def unpack_unknowns(self, u: AssembledVector) -> dict[str, TensorWrapper]:
        """Typed unknown values from an assembled vector."""
        lay = u.layout
        return {
            n: self.types[n]._wrap(t, len(lay.variable(n).sub_batch_shape))
            for n, t in u.unpack().items()
        }

    # ------------------------------------------------------------------ assembly
    def _unknown_seeds(
        self, like: torch.Tensor, nb: int, per_variable: bool
    ) -> dict[str, tuple[str, TensorWrapper]]:
        """``{unknown: (leaf, seed)}``: one leaf per group, or one per variable."""
        key = (id(self.unknown_layout), like.dtype, like.device, nb, per_variable)  # cached layouts
        seeds = self._seeds.get(key)
        if seeds is None:
            seeds = {}
            for gi, g in enumerate(self.unknown_layout.groups):
                leaf = "__u" if per_variable else f"__u{gi}"
                for i, var in enumerate(g.variables):
                    seeds[var.name] = self._variable_seed(
                        self.types[var.name], g, i, leaf, per_variable, nb, like
                    )
            self._seeds[key] = seeds
        return seeds

    def _given_seeds(
        self, layout: AxisLayout, per_variable: bool
    ) -> dict[str, tuple[str, TensorWrapper]]:
        """``{given: (leaf, seed)}`` of the one given column group: one leaf for the group, or
        one per variable (as :meth:`_unknown_seeds`)."""
        g = layout.groups[0]
        out = {}
        for i, var in enumerate(g.variables):
            x = self._givens[var.name]
            nb = len(x.dynamic_batch_shape)
            out[var.name] = self._variable_seed(type(x), g, i, "__g", per_variable, nb, x.data)
        return out

    @staticmethod
    def _variable_seed(
        cls: Any,
        group: AxisGroup,
        i: int,
        leaf: str,
        per_variable: bool,
        nb: int,
        like: torch.Tensor,
    ) -> tuple[str, TensorWrapper]:
        """Leaf name and seed of variable ``i`` of a column group: its own identity as leaf
        ``<leaf>:<name>``, or its slice of the group's identity as leaf ``<leaf>`` (the names
        :meth:`_segments` lists)."""
        var = group.variables[i]
        sub = var.sub_batch_shape
        if per_variable:
            w = group.offsets[i + 1] - group.offsets[i]
            return f"{leaf}:{var.name}", make_seed(cls, w, 0, sub, nb, group.is_block, like)
        seed = make_seed(cls, group.width, group.offsets[i], sub, nb, group.is_block, like)
        return leaf, seed

    @staticmethod
    def _segments(group: AxisGroup, leaf: str, per_variable: bool) -> list[tuple[str, int]]:
        """The seed leaves of a column group and their column counts (see the seed methods)."""
        if not per_variable:
            return [(leaf, group.width)]
        return [
            (f"{leaf}:{var.name}", group.offsets[i + 1] - group.offsets[i])
            for i, var in enumerate(group.variables)
        ]

    def _call(
        self, u: AssembledVector, v: dict[str, dict[str, TensorWrapper]] | None
    ) -> tuple[dict[str, TensorWrapper], dict[str, dict[str, TensorWrapper]]]:
        vals: dict[str, Any] = dict(self._givens)
        vals.update(self.unpack_unknowns(u))
        args = [vals[n] for n in self.model.input_spec]
        self.residual_evaluations += 1
        if v is None:
            res = self.model(*args)
            res = res if isinstance(res, tuple) else (res,)
            return dict(zip(self.model.output_spec, res, strict=True)), {}
        res = call_deferring(self.model, *args, v=v)  # tangent sums may stay deferred inside
        res = res if isinstance(res, tuple) else (res,)
        return dict(zip(self.model.output_spec, res[:-1], strict=True)), materialize(res[-1])

    def _pack_residuals(
        self, values: Mapping[str, torch.Tensor | None], like: Mapping[str, TensorWrapper]
    ) -> AssembledVector:
        """Pack residual-shaped values (wrapper ``like[r]`` layout; ``None`` → zeros)."""
        raw = {}
        for r in self.residual_names:
            y = like[r]
            if not isinstance(y, TensorWrapper):
                raise TypeError(f"NonlinearSystem: residual '{r}' is not a typed wrapper")
            d = values[r]
            d = torch.zeros_like(y.data) if d is None else d
            sub = self.residual_layout.variable(r).sub_batch_shape
            if y.sub_batch_ndim != len(sub) or tuple(y.sub_batch_shape) != sub:
                d = fit_rest(d, 0, y.sub_batch_ndim, y.dynamic_batch_shape, sub, y.BASE_NDIM)
            raw[r] = d
        return AssembledVector.pack(self.residual_layout, raw)

    def _rhs(self, outs: Mapping[str, TensorWrapper]) -> AssembledVector:
        return self._pack_residuals({r: -outs[r].data for r in self.residual_names}, outs)

    def _blocks(
        self,
        outs: Mapping[str, TensorWrapper],
        v_out: Mapping[str, Mapping[str, TensorWrapper]],
        cols: AxisLayout,
        segments: Sequence[Sequence[tuple[str, int]]],
        batch: torch.Size,
        batch_outer: bool = False,
    ) -> list[list[torch.Tensor]]:
        """Row group × column group blocks ``(*B, *sub, m, n)`` from the pushed tangents.

        ``segments[j]`` lists the seed leaves of column group ``j`` with their column counts.
        ``batch_outer``: plain eager blocks are contiguous (see :meth:`_plain_dense`).
        """
        rows = []
        for rg in self.residual_layout.groups:
            row = []
            for cg, segs in zip(cols.groups, segments, strict=True):
                if _plain(rg) and _plain(cg):
                    row.append(self._plain_block(outs, v_out, rg, cg, segs, batch, batch_outer))
                    continue
                sub = block_sub(rg, cg)
                parts = []
                for var in rg.variables:
                    m = var.base_size * (1 if rg.is_block else var.sub_size)
                    cells = []
                    for leaf, width in segs:
                        t = v_out.get(var.name, {}).get(leaf)
                        if t is None:
                            zero = outs[var.name].data.new_zeros(())
                            cells.append(zero.expand((*batch, *sub, m, width)))
                            continue
                        cells.append(
                            extract_block(t, batch, var.sub_batch_shape, rg.is_block,
                                          cg.sub_batch_shape, cg.is_block, width)
                        )  # fmt: skip
                    parts.append(cells[0] if len(cells) == 1 else torch.cat(cells, dim=-1))
                row.append(parts[0] if len(parts) == 1 else torch.cat(parts, dim=-2))
            rows.append(row)
        return rows

    @staticmethod
    def _plain_cells(
        outs: Mapping[str, TensorWrapper],
        v_out: Mapping[str, Mapping[str, TensorWrapper]],
        rg: AxisGroup,
        segs: Sequence[tuple[str, int]],
        batch: torch.Size,
    ) -> list[list[torch.Tensor | None]]:
        """Per seed leaf (column slab) and residual variable: the tangent ``(width, *B, m)``
        (the K-stacked memory order), None where it is structurally zero."""
        slabs = []
        for leaf, width in segs:
            cells: list[torch.Tensor | None] = []
            for i, var in enumerate(rg.variables):
                shape = (width, *batch, rg.offsets[i + 1] - rg.offsets[i])
                t = v_out.get(var.name, {}).get(leaf)
                if t is None:
                    cells.append(None)
                else:
                    d = fit_rest(t.data, t.k_ndim, t.sub_batch_ndim, batch, (), t.BASE_NDIM)
                    cells.append(d.reshape(shape))
            slabs.append(cells)
        return slabs

    @staticmethod
    def _cell_parts(
        slabs: Sequence[Sequence[torch.Tensor | None]],
        rg: AxisGroup,
        segs: Sequence[tuple[str, int]],
    ) -> list[MatrixPart]:
        """The nonzero cells as ``(*B, m, width)`` parts of the flat block (views, no copy)."""
        parts = []
        col = 0
        for cells, (_, width) in zip(slabs, segs, strict=True):
            for i, c in enumerate(cells):
                if c is not None:
                    parts.append(MatrixPart(rg.offsets[i], col, c.movedim(0, -1)))
            col += width
        return parts

    @staticmethod
    def _plain_dense(
        slabs: Sequence[Sequence[torch.Tensor | None]],
        like: torch.Tensor,
        rg: AxisGroup,
        cg: AxisGroup,
        segs: Sequence[tuple[str, int]],
        batch: torch.Size,
        eager: bool,
        batch_outer: bool = False,
    ) -> torch.Tensor:
        """Block ``(*B, m, n)`` of two dense groups without sub-batch axes from its cells.

        The cells of one seed leaf are concatenated along the rows into their column slab of an
        ``(n, *B, m)`` buffer, the memory order the K-stacked tangents come in (no transposing
        copy; the native batched solve gathers each element's columns from it directly). Plain
        ``eager`` calls without autograd write each slab with ``cat(out=)``; traced or
        differentiated ones concatenate the slabs (one ``cat``, nothing scattered into a buffer,
        which in a compiled graph costs a full copy of the buffer per write).

        ``batch_outer`` (eager calls): the block is a contiguous ``(*B, m, n)`` tensor instead
        (a large one from :func:`~neml2.tensors.hooks.empty_output`: inside a solver's
        workspace), zeroed when a cell is absent and each present cell copied to its place. A
        right-hand side is solved in that layout, so it can be solved in place
        (:meth:`DirectSolver.solve_matrix`'s ``overwrite_b``) rather than copied into a new
        buffer of the same size.
        """
        if eager and batch_outer:
            shape = (*batch, rg.width, cg.width)
            out = empty_output(shape, like)
            out = like.new_empty(shape) if out is None else out
            if any(c is None for cells in slabs for c in cells):
                out.zero_()  # one contiguous pass, not a strided one per absent cell
            c0 = 0
            for cells, (_, width) in zip(slabs, segs, strict=True):
                for i, c in enumerate(cells):
                    if c is not None:
                        dst = out[..., rg.offsets[i] : rg.offsets[i + 1], c0 : c0 + width]
                        dst.copy_(c.movedim(0, -1))
                c0 += width
            return out
        zero = like.new_zeros(())
        full = [
            [zero.expand(width, *batch, rg.offsets[i + 1] - rg.offsets[i]) if c is None else c
             for i, c in enumerate(cells)]
            for cells, (_, width) in zip(slabs, segs, strict=True)
        ]  # fmt: skip
        if eager:
            buf = like.new_empty(cg.width, *batch, rg.width)
            c0 = 0
            for cells, (_, width) in zip(full, segs, strict=True):
                torch.cat(cells, dim=-1, out=buf[c0 : c0 + width])
                c0 += width
        else:
            buf = torch.cat([torch.cat(cells, dim=-1) for cells in full], dim=0)
        return buf.movedim(0, -1)

    @staticmethod
    def _plain_eager(like: torch.Tensor, slabs: Sequence[Sequence[torch.Tensor | None]]) -> bool:
        """Plain eager tensors without autograd (``cat(out=)`` and in-place reads are safe)."""
        flat = [c for cells in slabs for c in cells if c is not None]
        return plain_eager(like, *flat) and not any(c.requires_grad for c in flat)

    def _plain_block(
        self,
        outs: Mapping[str, TensorWrapper],
        v_out: Mapping[str, Mapping[str, TensorWrapper]],
        rg: AxisGroup,
        cg: AxisGroup,
        segs: Sequence[tuple[str, int]],
        batch: torch.Size,
        batch_outer: bool = False,
    ) -> torch.Tensor:
        """Block ``(*B, m, n)`` of two dense groups without sub-batch axes (:meth:`_plain_dense`)."""
        like = outs[rg.variables[0].name].data
        slabs = self._plain_cells(outs, v_out, rg, segs, batch)
        eager = self._plain_eager(like, slabs)
        return self._plain_dense(slabs, like, rg, cg, segs, batch, eager, batch_outer)

    def _single_plain_jacobian(
        self,
        outs: Mapping[str, TensorWrapper],
        v_out: Mapping[str, Mapping[str, TensorWrapper]],
        lay: AxisLayout,
        segs: Sequence[tuple[str, int]],
        batch: torch.Size,
    ) -> AssembledMatrix:
        """``A`` of one dense residual group and one dense unknown group: in plain eager mode by
        its nonzero tangent blocks (:meth:`AssembledMatrix.from_parts`, the dense block built only
        if asked for), else assembled (differentiable, traceable)."""
        (rg,), (cg,) = self.residual_layout.groups, lay.groups
        like = outs[rg.variables[0].name].data
        slabs = self._plain_cells(outs, v_out, rg, segs, batch)
        if not self._plain_eager(like, slabs):
            blk = self._plain_dense(slabs, like, rg, cg, segs, batch, False)
            return AssembledMatrix(self.residual_layout, lay, [[blk]], check=False)

        def dense() -> list[list[torch.Tensor]]:
            return [[self._plain_dense(slabs, like, rg, cg, segs, batch, True)]]

        parts = self._cell_parts(slabs, rg, segs)
        return AssembledMatrix.from_parts(self.residual_layout, lay, parts, dense)

    def assemble(
        self,
        u: AssembledVector,
        need_A: bool = True,
        need_B: bool = False,
        need_b: bool = True,
        givens: Sequence[str] | None = None,
    ) -> tuple[AssembledMatrix | None, AssembledMatrix | None, AssembledVector | None]:
        """``(A, B, b)`` at ``u`` from one model call (``None`` for what is not needed).

        ``B`` has the columns of :meth:`given_layout` ``(givens)``.
        """
        v: dict[str, dict[str, TensorWrapper]] = {}
        per_var = self._seed_per_variable or (
            math.prod(u.batch_shape) >= self.PER_VARIABLE_SEEDS_FROM
        )
        if need_A:
            seeds = self._unknown_seeds(u.tensors[0], len(u.batch_shape), per_var)
            for n, (leaf, seed) in seeds.items():
                v[n] = {leaf: seed}
        glay = self.given_layout(givens) if need_B else None
        per_var_g = self._seed_per_variable or (
            math.prod(u.batch_shape) >= self.PER_VARIABLE_GIVEN_SEEDS_FROM
        )
        if glay is not None:
            for n, (leaf, seed) in self._given_seeds(glay, per_var_g).items():
                v[n] = {leaf: seed}
        outs, v_out = self._call(u, v if v else None)
        b = self._rhs(outs)
        batch = broadcast_batch(u.batch_shape, b.batch_shape)
        A = B = None
        if need_A:
            lay = self.unknown_layout
            segments = [
                self._segments(g, "__u" if per_var else f"__u{gi}", per_var)
                for gi, g in enumerate(lay.groups)
            ]
            single = len(lay.groups) == 1 and len(self.residual_layout.groups) == 1
            if single and _plain(lay.groups[0]) and _plain(self.residual_layout.groups[0]):
                A = self._single_plain_jacobian(outs, v_out, lay, segments[0], batch)
            else:
                blocks = self._blocks(outs, v_out, lay, segments, batch)
                A = AssembledMatrix(self.residual_layout, self.unknown_layout, blocks, check=False)
            self._last = (u, A)
        if glay is not None:
            segs = [self._segments(glay.groups[0], "__g", per_var_g)]
            blocks = self._blocks(outs, v_out, glay, segs, batch, batch_outer=True)
            B = AssembledMatrix(self.residual_layout, glay, blocks, check=False)
        return A, B, (b if need_b else None)

    def prepare_for_capture(self) -> None:
        """Make the next assemblies traceable as one graph for any batch size (``torch.export``):
        forget the cached seeds and the last Jacobian (values of an earlier trace or call), and
        seed every variable separately at any batch (a batch-size threshold would guard the
        symbolic batch)."""
        self._seeds.clear()
        self._last = None
        self._seed_per_variable = True

    def cached_jacobian(self, u: AssembledVector) -> AssembledMatrix | None:
        """``A`` if the last assembly was at exactly this ``u`` (the converged Newton iterate)."""
        if self._last is not None and self._last[0] is u:
            return self._last[1]
        return None

    # ------------------------------------------------------------------ Newton protocol
    def residual(self, u: AssembledVector) -> AssembledVector:
        """``b = -r(u)``."""
        outs, _ = self._call(u, None)
        return self._rhs(outs)

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        """``A = ∂r/∂u``."""
        A, _, _ = self.assemble(u, need_A=True, need_b=False)
        assert A is not None
        return A

    def residual_and_jacobian(self, u: AssembledVector) -> tuple[AssembledVector, AssembledMatrix]:
        """``(b, A)`` from one model call."""
        A, _, b = self.assemble(u, need_A=True, need_b=True)
        assert A is not None and b is not None
        return b, A

    def matvec(self, u: AssembledVector, x: AssembledVector) -> AssembledVector:
        """``A(u) x`` by one directional (K = 1) pushforward."""
        v: dict[str, dict[str, TensorWrapper]] = {}
        lay = x.layout
        for n, t in x.unpack().items():
            ns = len(lay.variable(n).sub_batch_shape)
            v[n] = {"__dir": self.types[n]._wrap(t.unsqueeze(0), ns, (), (), 1, _FULL, _NONE1)}
        outs, v_out = self._call(u, v)
        vals: dict[str, torch.Tensor | None] = {}
        for r in self.residual_names:
            tr = v_out.get(r, {}).get("__dir")
            vals[r] = None if tr is None else tr.data.squeeze(0)
        return self._pack_residuals(vals, outs)


NonlinearSystem = register_neml2_object("NonlinearSystem")(ModelNonlinearSystem)
