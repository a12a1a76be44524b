r"""Stages 1–2 of a compile: load the model, resolve promoted parameters and derivative pairs.

Parameter naming (the artifact's public names): :class:`neml2.models.public_names.PublicNames`
(``-p`` also takes the aliases of ``Model.parameter_name``). ``-d OUT:IN`` splits at the first ``:``; an empty side means all outputs / all
structural inputs; IN is matched against structural inputs first, then promoted parameters.

Pairs of sub-batched variables (ARTIFACT.md §3.1): a forward model compiles them; the graphs
return each block in the full per-site layout ``(B, *S_out, *out_base, *S_in, *in_base)``, and
:attr:`Prepared.site_diagonal` lists the pairs whose public block is py-eager's site-diagonal
``(*B, *S, *out_base, *in_base)`` (``Model.jacobian``'s rule, read off one eager evaluation). An
ImplicitUpdate compiles no IFT pair of a sub-batched unknown or given (as NEML2 v3).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from neml2.aoti.compile._errors import CompileError
from neml2.models.boundary import VarInfo, boundary_variables
from neml2.models.model import Model
from neml2.models.public_names import PublicNames

__all__ = ["ParamInfo", "Prepared", "prepare"]


@dataclass(frozen=True)
class ParamInfo:
    """A promoted parameter: public and internal names, type, stored value, origin."""

    name: str
    internal: str
    var_type: str
    base_shape: tuple[int, ...]
    value: torch.Tensor
    origin: str

    @property
    def shape(self) -> tuple[int, ...]:
        """Stored (unbatched) shape."""
        return tuple(self.value.shape)

    @property
    def size(self) -> int:
        """Number of stored components."""
        return int(self.value.numel())


@dataclass
class Prepared:
    """A loaded model with its boundary, promoted parameters and requested pairs."""

    model: Any
    name: str
    implicit: bool
    settings: Any
    inputs: list[VarInfo]
    outputs: list[VarInfo]
    params: list[ParamInfo]
    pairs: list[tuple[str, str]] = field(default_factory=list)
    param_pairs: list[tuple[str, str]] = field(default_factory=list)
    #: input pairs whose public block is site-diagonal ``(*B, *S, *out_base, *in_base)``
    site_diagonal: frozenset[tuple[str, str]] = frozenset()


def _candidates(model: Any, prefix: str) -> dict[str, tuple[str, str]]:
    """Public name → (internal qualified name, origin)."""
    out: dict[str, tuple[str, str]] = {}
    for n, _ in model.named_parameters():
        out[prefix + n] = (n, "parameter")
    for n, _ in model.named_buffers():
        out[prefix + n] = (n, "buffer")
    return out


def _in_residual(model: Any, internal: str) -> bool:
    rm = model.system.model
    return any(c is rm and internal.startswith(f"{n}.") for n, c in model.named_children())


def _param_info(model: Any, public: str, internal: str, origin: str) -> ParamInfo:
    path, _, attr = internal.rpartition(".")
    mod = model.get_submodule(path) if path else model
    store = mod.named_parameters if origin == "parameter" else mod.named_buffers
    value = dict(store(recurse=False))[attr].detach()
    cls = mod.parameter_type(attr) if isinstance(mod, Model) else None  # None: a plain tensor
    var_type = cls.__name__ if cls is not None else "Tensor"
    base = tuple(getattr(cls, "BASE_SHAPE", ())) if cls is not None else ()
    if not value.is_floating_point():
        raise CompileError(f"-p {public}: only floating-point parameters can be promoted")
    return ParamInfo(public, internal, var_type, base, value.clone(), origin)


def load(
    input_file: str | Path,
    model: str | None,
    driver: str | None,
    overrides: Sequence[str],
    device: str,
    dtype: torch.dtype,
    pre: Sequence[str] = (),
) -> tuple[Any, str, Any]:
    """``(model, name, settings)`` from the input file (``--model`` or ``--driver``), after
    the HIT text ``pre`` (snippets placed before the file) and the command-line overrides."""
    import neml2

    path = Path(input_file)
    if not path.is_file():
        raise CompileError(f"input file '{input_file}' does not exist")
    if (model is None) == (driver is None):
        raise CompileError("give exactly one of --model NAME and --driver NAME")
    try:
        f = neml2.load_input(
            path, pre=list(pre), additional_args=list(overrides), device=device, dtype=dtype
        )
        if driver is not None:
            drv = f.get_driver(driver)
            m = getattr(drv, "model", None)
            if m is None:
                raise CompileError(f"--driver {driver}: the driver has no 'model'")
            name = m.hit_name or driver
        else:
            assert model is not None
            m = f.get_model(model)
            name = model
        settings = f.settings
    except CompileError:
        raise
    except Exception as e:  # any load error is a user error of the input file
        msg = " ".join(str(e).split())
        raise CompileError(f"{input_file}: {type(e).__name__}: {msg}") from None
    return m, name, settings


def _structural_match(name: str, side: str, choices: Sequence[str], what: str) -> None:
    if name not in choices:
        raise CompileError(f"-d {side}: unknown {what} '{name}' (available: {', '.join(choices)})")


def resolve_pairs(
    specs: Sequence[str], inputs: Sequence[str], outputs: Sequence[str], params: Sequence[str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``-d OUT:IN`` specs → (input pairs, parameter pairs), ordered by output then input."""
    pairs: set[tuple[str, str]] = set()
    ppairs: set[tuple[str, str]] = set()
    for spec in specs:
        out, sep, inp = spec.partition(":")
        if not sep:
            raise CompileError(f"-d {spec}: expected OUT:IN (an empty side means all)")
        outs = list(outputs) if not out else [out]
        if out:
            _structural_match(out, spec, outputs, "output variable")
        if not inp:
            pairs.update((o, i) for o in outs for i in inputs)
        elif inp in inputs:
            pairs.update((o, inp) for o in outs)
        elif inp in params:
            ppairs.update((o, inp) for o in outs)
        else:
            avail = [*inputs, *params]
            raise CompileError(
                f"-d {spec}: unknown input variable or promoted parameter '{inp}' (available: "
                f"{', '.join(avail)})"
            )
    oi = {n: k for k, n in enumerate(outputs)}
    ii = {n: k for k, n in enumerate([*inputs, *params])}
    return (
        sorted(pairs, key=lambda p: (oi[p[0]], ii[p[1]])),
        sorted(ppairs, key=lambda p: (oi[p[0]], ii[p[1]])),
    )


def _example_state(m: Any, ins: list[VarInfo], device: str, dtype: torch.dtype) -> dict[str, Any]:
    """Typed example inputs of batch 1 with entries in [0.5, 1.5) (away from the zeros where a
    rule can divide by zero), each with its declared sub-batch."""
    gen = torch.Generator().manual_seed(0)
    state = {}
    for v in ins:
        x = torch.rand((1, *v.sub_batch_shape, *v.base_shape), generator=gen, dtype=torch.float64)
        raw = (x + 0.5).to(device=device, dtype=dtype)
        state[v.name] = m.input_spec[v.name](raw, sub_batch_ndim=len(v.sub_batch_shape))
    return state


def _carried_sub_batch(
    m: Any, ins: list[VarInfo], outs: list[VarInfo], device: str, dtype: torch.dtype
) -> list[VarInfo]:
    """``outs`` with the sub-batch shape each undeclared output carries over from sub-batched
    inputs (a slip rule applied to per-slip-system stresses gives per-system rates, say).

    No declaration gives these outputs a shape, and a forward model states none (it computes
    them by broadcasting), so they are read off one evaluation at :func:`_example_state`. An
    output with a declared or model-given sub-batch keeps it. ValueError (naming the outputs and
    the way out) when that evaluation fails.
    """
    if not any(v.sub_batch_shape for v in ins) or all(v.sub_batch_shape for v in outs):
        return outs
    try:
        with torch.no_grad():
            got = m.value(_example_state(m, ins, device, dtype))
    except Exception as e:
        undeclared = [v.name for v in outs if not v.sub_batch_shape]
        raise ValueError(
            f"the sub-batch shape of output(s) {undeclared} could not be read off an evaluation "
            f"at example inputs ({type(e).__name__}: {e}); declare it in [Settings] as "
            f"example_batch_shape entries 'name=(dyn;sub)'"
        ) from e
    return [
        v
        if v.sub_batch_shape
        else dataclasses.replace(v, sub_batch_shape=got[v.name].sub_batch_shape)
        for v in outs
    ]


def _site_diagonal(
    m: Any,
    ins: list[VarInfo],
    outs: list[VarInfo],
    pairs: Sequence[tuple[str, str]],
    device: str,
    dtype: torch.dtype,
) -> frozenset[tuple[str, str]]:
    """The pairs of sub-batched inputs whose py-eager block is site-diagonal
    ``(*B, *S, *out_base, *in_base)`` rather than ``(*B, *S_out, *out_base, *S_in, *in_base)``:
    a structural property of the model, read off one ``Model.jacobian`` at example inputs."""
    sub = {v.name: v.sub_batch_shape for v in ins}
    if not any(sub[i] for _, i in pairs):
        return frozenset()
    with torch.no_grad():
        _, jac = m.jacobian(_example_state(m, ins, device, dtype))
    full = {v.name: len(v.sub_batch_shape) + len(v.base_shape) for v in (*ins, *outs)}
    out: set[tuple[str, str]] = set()
    for o, i in pairs:
        block = jac[o][i]
        if sub[i] and block.data.dim() - block.batch_ndim < full[o] + full[i]:
            out.add((o, i))
    return frozenset(out)


def prepare(
    input_file: str | Path,
    *,
    model: str | None = None,
    driver: str | None = None,
    overrides: Sequence[str] = (),
    device: str = "cpu",
    dtype: torch.dtype = torch.float64,
    promote: Sequence[str] = (),
    derivatives: Sequence[str] = (),
    sub_batch: Mapping[str, tuple[int, ...]] | None = None,
    pre: Sequence[str] = (),
) -> Prepared:
    """Load and validate a compile request (stages 1–2); raises :class:`CompileError`."""
    from neml2.models.common.implicit_update import ImplicitUpdate

    m, name, settings = load(input_file, model, driver, overrides, device, dtype, pre)
    if not isinstance(m, Model):
        raise CompileError(f"[Models/{name}] is not a py-eager neml2 model")
    implicit = isinstance(m, ImplicitUpdate)
    if not implicit and any(isinstance(c, ImplicitUpdate) for c in m.modules()):
        raise CompileError(
            f"model '{name}' contains an ImplicitUpdate inside a composition; neml2-compile "
            f"compiles a forward model or an ImplicitUpdate at the root (compile the "
            f"ImplicitUpdate block itself)"
        )
    names = PublicNames.of(m, name)
    cands = _candidates(m, names.prefix)
    params: list[ParamInfo] = []
    for p in sorted({names.canonical(q) for q in promote}):
        if p not in cands:
            avail = ", ".join(cands) or "(none)"
            raise CompileError(f"-p {p}: unknown parameter (available: {avail})")
        internal, origin = cands[p]
        if implicit and not _in_residual(m, internal):
            raise CompileError(
                f"-p {p}: only parameters of the equation system's model can be promoted in an "
                f"ImplicitUpdate"
            )
        params.append(_param_info(m, p, internal, origin))
    try:
        ins, outs = boundary_variables(m, settings, sub_batch=sub_batch)
        if not implicit:
            outs = _carried_sub_batch(m, ins, outs, device, dtype)
    except ValueError as e:
        raise CompileError(f"{input_file}: {e}") from None
    structural = [v.name for v in ins]
    specs = []
    for spec in derivatives:  # a parameter on the IN side may be given by an alias, as with -p
        out, sep, inp = spec.partition(":")
        if inp and inp not in structural:
            inp = names.canonical(inp)
        specs.append(f"{out}{sep}{inp}")
    pairs, ppairs = resolve_pairs(
        specs, structural, [v.name for v in outs], [p.name for p in params]
    )
    sub = {v.name: v.sub_batch_shape for v in (*ins, *outs)}
    for o, i in pairs if implicit else ():
        if sub[o] or sub[i]:
            raise CompileError(
                f"-d {o}:{i}: the pair involves a sub-batched variable; an ImplicitUpdate "
                f"compiles no IFT derivative of a sub-batched unknown or given"
            )
    try:
        diagonal = frozenset() if implicit else _site_diagonal(m, ins, outs, pairs, device, dtype)
    except ValueError as e:  # Model.jacobian has no block layout for a pair (names it)
        raise CompileError(f"{input_file}: -d: {e}") from None
    return Prepared(m, name, implicit, settings, ins, outs, params, pairs, ppairs, diagonal)
