r"""``NEML2PyzagModel``: one implicit step of a neml2 equation system as a pyzag operator factory.

pyzag integrates :math:`R(x_k, x_{k-1}; f_k, f_{k-1}; p) = 0` over a time series of states
:math:`x` (the system's unknowns, flat ``nstate``) driven by forces :math:`f` (the lag-0 givens,
flat ``nforce``). Givens named ``name~1`` are read from the previous state (if ``name`` is an
unknown) or the previous forces. Every direct parameter of a sub-model with a HIT block name is
mirrored as an ``nn.Parameter`` ``<block>_<param>`` (so pyzag's adjoint and torch optimizers see
it) and re-bound onto the model before every evaluation.

Supported: dense unknown groups without sub-batch, one batch axis (pyzag's dense backend).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import torch
from pyzag.nonlinear import ChunkOp, NonlinearFunctionOperator, NonlinearFunctionOperatorFactory  # type: ignore[import-untyped, unused-ignore]

from neml2.es import AxisLayout, ModelNonlinearSystem
from neml2.pyzag._operators import NEML2BlockJacobian, NEML2Wrapper

__all__ = ["NEML2PyzagModel"]


def _slices(layout: AxisLayout) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """``name -> (start, stop, base_shape)`` on the flat axis of a sub-batch-free layout."""
    out, start = {}, 0
    for g in layout.groups:
        for var in g.variables:
            if var.sub_batch_shape:
                raise ValueError(
                    f"neml2.pyzag: variable '{var.name}' has sub-batch shape "
                    f"{var.sub_batch_shape}; the pyzag adapter supports sub-batch-free states"
                )
            out[var.name] = (start, start + var.base_size, tuple(var.base_shape))
            start += var.base_size
    return out


class NEML2PyzagModel(torch.nn.Module, NonlinearFunctionOperatorFactory):  # type: ignore[misc, unused-ignore]
    """pyzag 2.x factory over a :class:`~neml2.es.ModelNonlinearSystem` (see module doc).

    ``exclude_parameters`` / ``include_parameters`` (mutually exclusive) filter the mirrored
    parameter names (``<block>_<param>``).
    """

    sys: ModelNonlinearSystem  # stored in __dict__, not as a submodule

    def __init__(
        self,
        sys: ModelNonlinearSystem,
        *,
        exclude_parameters: Iterable[str] | None = None,
        include_parameters: Iterable[str] | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(sys, ModelNonlinearSystem):
            raise TypeError(
                f"NEML2PyzagModel: expected a ModelNonlinearSystem (neml2.load_nonlinear_system),"
                f" got {type(sys).__name__}"
            )
        if exclude_parameters is not None and include_parameters is not None:
            raise ValueError(
                "NEML2PyzagModel: 'exclude_parameters' and 'include_parameters' are mutually "
                "exclusive"
            )
        self.__dict__["sys"] = sys  # not a submodule: its parameters are mirrored below
        given = set(sys.given_names)
        self.state_names = tuple(sys.unknown_names)
        self.old_state_names = tuple(f"{u}~1" for u in self.state_names)
        self.force_names = tuple(n for n in sys.given_names if not n.endswith("~1"))
        self.old_force_names = tuple(f"{f}~1" for f in self.force_names if f"{f}~1" in given)
        for n in sys.given_names:
            if n.endswith("~1") and n[:-2] not in self.state_names + self.force_names:
                raise ValueError(
                    f"NEML2PyzagModel: given '{n}' has no current counterpart '{n[:-2]}' among "
                    f"the unknowns {list(self.state_names)} or forces {list(self.force_names)}"
                )
        self.slayout = sys.unknown_layout
        self.flayout = AxisLayout.build(
            [[(f, tuple(sys.types[f].BASE_SHAPE)) for f in self.force_names]]
        )
        self._s = _slices(self.slayout)
        self._f = _slices(self.flayout)
        self.nstate = self.slayout.flat_size
        self.nforce = self.flayout.flat_size
        self._wrapper = NEML2Wrapper(self.slayout)
        self._bindings = self._mirror(exclude_parameters, include_parameters)

    # ------------------------------------------------------------------ parameters
    def _mirror(
        self, exclude: Iterable[str] | None, include: Iterable[str] | None
    ) -> list[tuple[torch.nn.Module, str, str]]:
        from neml2.models.model import Model

        inc = None if include is None else set(include)
        exc = set(exclude or ())
        seen: list[str] = []
        bindings: list[tuple[torch.nn.Module, str, str]] = []
        for mod in self.sys.model.modules():
            hit = getattr(mod, "_hit_name", None)
            if not isinstance(mod, Model) or not hit:
                continue
            for attr, p in list(mod._parameters.items()):
                name = f"{hit}_{attr}"
                if p is None or name in seen:
                    continue
                seen.append(name)
                if name in exc or (inc is not None and name not in inc):
                    continue
                self.register_parameter(name, torch.nn.Parameter(p.detach().clone()))
                bindings.append((mod, attr, name))
        for what, names in (("include_parameters", inc or set()), ("exclude_parameters", exc)):
            unknown = sorted(set(names) - set(seen))
            if unknown:
                raise ValueError(
                    f"NEML2PyzagModel: option '{what}': unknown parameter(s) {unknown} "
                    f"(available: {seen})"
                )
        return bindings

    def _rebind(self) -> None:
        """Point every mirrored model parameter at the current mirror value."""
        for mod, attr, name in self._bindings:
            value = getattr(self, name)
            if mod._parameters.get(attr) is not value:
                mod._parameters[attr] = value

    # ------------------------------------------------------------------ pyzag protocol
    @property
    def lookback(self) -> int:
        return 1

    @lookback.setter
    def lookback(self, value: int) -> None:
        if value != 1:
            raise ValueError(f"NEML2PyzagModel: lookback must be 1, got {value}")

    @property
    def wrapper(self) -> NEML2Wrapper:
        return self._wrapper

    @wrapper.setter
    def wrapper(self, value: NEML2Wrapper) -> None:
        self._wrapper = value

    def make_operator(
        self, prev_solution: torch.Tensor, forces: Sequence[torch.Tensor], inverse_operator: Any
    ) -> NonlinearFunctionOperator:
        return ChunkOp(self, prev_solution, forces, inverse_operator)

    # ------------------------------------------------------------------ packing
    def _assemble(
        self, values: Mapping[str, Any], names: Sequence[str], dynamic_dim: int, what: str
    ) -> torch.Tensor:
        parts, batches = [], []
        for n in names:
            if n not in values:
                raise KeyError(f"NEML2PyzagModel.{what}: missing variable '{n}'")
            x = values[n]
            x = getattr(x, "data", x)
            base = tuple(self.sys.types[n].BASE_SHAPE)
            nsub = x.dim() - dynamic_dim - len(base)
            if nsub < 0 or tuple(x.shape[x.dim() - len(base) :]) != base:
                raise ValueError(
                    f"NEML2PyzagModel.{what}: variable '{n}' needs shape "
                    f"({dynamic_dim} dynamic dims, *{base}), got {tuple(x.shape)}"
                )
            declared = self.sys.declared_sub.get(n, ())
            if nsub or declared:
                raise ValueError(
                    f"NEML2PyzagModel.{what}: variable '{n}' has {nsub} sub-batch dim(s) "
                    f"(declared: {declared}); the pyzag adapter supports none"
                )
            parts.append(x.reshape((*x.shape[:dynamic_dim], -1)))
            batches.append(tuple(x.shape[:dynamic_dim]))
        batch = torch.broadcast_shapes(*batches)  # type: ignore[no-untyped-call]
        return torch.cat([p.expand((*batch, p.shape[-1])) for p in parts], dim=-1)

    def assemble_state(self, ic: Mapping[str, Any], dynamic_dim: int = 1) -> torch.Tensor:
        """Flat state ``(*dyn, nstate)`` from ``{unknown: (*dyn, *base)}``."""
        return self._assemble(ic, self.state_names, dynamic_dim, "assemble_state")

    def assemble_forces(self, forces: Mapping[str, Any], dynamic_dim: int = 2) -> torch.Tensor:
        """Flat forces ``(*dyn, nforce)`` from ``{force: (*dyn, *base)}`` (e.g. ``(ntime, nbatch)``)."""
        return self._assemble(forces, self.force_names, dynamic_dim, "assemble_forces")

    def unpack_state(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """``{unknown: (..., *base)}`` from a flat state ``(..., nstate)``."""
        return self._unpack(x, self._s)

    @staticmethod
    def _unpack(
        x: torch.Tensor, slices: Mapping[str, tuple[int, int, tuple[int, ...]]]
    ) -> dict[str, torch.Tensor]:
        return {n: x[..., a:b].reshape((*x.shape[:-1], *s)) for n, (a, b, s) in slices.items()}

    # ------------------------------------------------------------------ evaluation
    def evaluate_raw(
        self, x_full: torch.Tensor, forces: Sequence[torch.Tensor]
    ) -> tuple[torch.Tensor, NEML2BlockJacobian]:
        """Residual ``(m, nbatch, nstate)`` and the bidiagonal Jacobian of the chunk ``x_full``.

        ``x_full`` is ``(m + 1, nbatch, nstate)`` (the lookback step first); ``forces`` are
        concatenated on the last axis into ``(m + 1, nbatch, nforce)``.
        """
        F = torch.cat(list(forces), dim=-1) if len(forces) != 1 else forces[0]
        if F.shape[-1] != self.nforce or x_full.shape[-1] != self.nstate:
            raise ValueError(
                f"NEML2PyzagModel.evaluate_raw: expected states (..., {self.nstate}) and forces "
                f"(..., {self.nforce}), got {tuple(x_full.shape)} and {tuple(F.shape)}"
            )
        cur, old = self.unpack_state(x_full[1:]), self.unpack_state(x_full[:-1])
        fcur, fold = self._unpack(F[1:], self._f), self._unpack(F[:-1], self._f)
        givens = {}
        for n in self.sys.given_names:
            if n in fcur:
                givens[n] = fcur[n]
            else:
                base = n[:-2]
                givens[n] = old[base] if base in cur else fold[base]
        self._rebind()
        self.sys.initialize(givens)
        u = self.sys.pack_unknowns(cur)
        cols = [n for n in self.old_state_names if n in givens]
        A, B, b = self.sys.assemble(u, need_A=True, need_B=bool(cols), givens=cols)
        assert A is not None and b is not None
        R = -b.flat()
        shape = (x_full.shape[0] - 1, *x_full.shape[1:-1], self.nstate, self.nstate)
        diag = torch.broadcast_to(A.to_dense(), shape).contiguous()
        sub = diag.new_zeros(shape)
        if B is not None:
            Bdense = B.to_dense()
            Bd = torch.broadcast_to(Bdense, (*shape[:-1], Bdense.shape[-1]))
            c = 0
            for n in cols:
                a, e, _ = self._s[n[:-2]]
                sub[..., a:e] = Bd[..., c : c + e - a]
                c += e - a
        R = torch.broadcast_to(R, shape[:-1])
        return R, self.wrapper.wrap_jacobian(diag, sub)
