r"""Trace with ``torch.export`` and lower with AOTInductor into ``.pt2`` packages.

One shared dynamic ``Dim("batch", min=1)`` on axis 0 of every argument (example batch >= 2, so
torch does not specialize 0/1), or every shape static with ``dynamic=False``. Lowering uses
the Inductor options below (the wrapper at ``-O1``, ``-O0`` if g++ fails on it; kernels keep
Inductor's flags) and a wrapper that passes slices of the outputs as raw pointers
(:mod:`neml2.aoti.compile._wrapper`; Inductor's own if that does not compile). A graph's wrapper
and kernel object files compile at the same time (:mod:`neml2.aoti.compile._overlap`), and
Inductor's vector-ISA probes run before, on threads, while the model is exported
(:mod:`neml2.aoti.compile._vec_isa`).
``jobs > 1`` lowers the largest program in this process and the others meanwhile in a pool of
``jobs - 1`` processes: the parent saves each of those with ``torch.export.save`` and the workers
load and compile them, so no model object crosses a process boundary. (Saving and loading the
largest one would lengthen the critical path: Chaboche's scalarized ``_jacobian``, 2800 nodes,
takes 3 s to save and 6-9 s to load.)
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import nullcontext
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import torch
from torch import nn

from neml2.aoti.compile._noexecstack import noexecstack_links
from neml2.aoti.compile._overlap import overlapped_objects
from neml2.aoti.compile._signature import signature_config
from neml2.aoti.compile._vec_isa import start_probes, wait_probes
from neml2.aoti.compile._wrapper import raw_output_views

__all__ = [
    "DERIVATIVE_CONFIGS",
    "DERIVATIVE_SIMDLEN",
    "FALLBACK_WRAPPER_OPT",
    "INDUCTOR_CONFIGS",
    "KEEP_TENSOR_CONSTANTS",
    "WRAPPER_OPT_LEVEL",
    "GraphJob",
    "constant_configs",
    "copied_inputs",
    "derivative_configs",
    "export_graph",
    "known_inductor_configs",
    "lower_all",
    "rows_independent",
    "scalarized_configs",
]

#: Inductor's option for the g++ optimization level of the AOTI wrapper (the C++ that allocates
#: a graph's buffers and sequences its kernels; kernels keep Inductor's default flags).
WRAPPER_OPT_LEVEL = "aot_inductor.compile_wrapper_opt_level"

#: Inductor options of every lowering: the wrapper at -O1, which makes its fixed cost per call
#: about a third smaller than at -O0 (Chaboche ``_jacobian`` at batch 4, one thread: 72 -> 46 µs
#: a call; at 512 rows 1.09 -> 1.01 µs per point) for about 1 s more g++ time per graph. g++ 12
#: crashed on the same wrapper at -O2; a lowering whose C++ fails to compile at this level is
#: retried once at :data:`FALLBACK_WRAPPER_OPT`.
INDUCTOR_CONFIGS: dict[str, Any] = {WRAPPER_OPT_LEVEL: "O1"}

#: The wrapper level of the retry after a C++ compile failure (the cheapest for the compiler).
FALLBACK_WRAPPER_OPT = "O0"

#: Added for graphs that compute derivatives (Jacobian, JVP, parameter Jacobian):
#:
#: * pointwise expressions of more than 4 ops are stored once instead of being inlined into every
#:   consumer (CPU default: 50). A per-point coefficient of a chain-rule action (e.g. Chaboche's
#:   ``A |X|^(a-1)``, with its ``pow``) is read by every entry of a 6x6 or 19x19 Jacobian block;
#:   inlined, it is recomputed for each. Measured per ``_jacobian`` call (one thread, float64):
#:   Chaboche 1.35 -> 1.27 µs per point at batch 10^3 with 4 instead of 10, Gurson 0.52 -> 0.44,
#:   the complementarity plasticity example 0.70 -> 0.72 (5 and 6 were slower than 10 for
#:   Chaboche).
#: * on x86-64 with AVX2, :data:`DERIVATIVE_SIMDLEN` (256-bit) vectors: the innermost axes of these
#:   graphs are mostly 6 wide (SR2 components), which fill 6 of the 16 float64 lanes of the tiled
#:   AVX-512 code but 6 of 8 with AVX2 (both options: Chaboche 1.19 µs, Gurson 0.37, the
#:   complementarity example 0.73).
#: * no masked vector code for loop tails (``cpp.enable_loop_tail_vec``): a 6-wide component loop
#:   then runs as plain scalar code instead of one 8-lane vector with 2 lanes masked off (and the
#:   6 x 8 transposes around it), and the batch-innermost loops stay vectorized. Measured per
#:   graph call at 512 rows (one thread, float64, wrapper at -O1): Chaboche ``_jacobian`` 1.29 ->
#:   1.21 µs per point, Gurson 0.45 -> 0.42, the complementarity example 0.35 -> 0.26; the
#:   elasticity ``_jvp`` at 10^6 points 134 -> 127 ns.
#:
#: Value graphs keep the defaults: there an extra stored buffer only costs (elasticity at batch 1:
#: +0.5 µs a call), and without tail vectors the Chaboche ``_residual`` graph was slower (0.18 ->
#: 0.27 µs per point). See :func:`derivative_configs`.
DERIVATIVE_CONFIGS: dict[str, Any] = {
    "realize_cpu_opcount_threshold": 4,
    "cpp.enable_loop_tail_vec": False,
}
DERIVATIVE_SIMDLEN = 256


def _simdlen_config() -> dict[str, Any]:
    """``cpp.simdlen`` = :data:`DERIVATIVE_SIMDLEN` when this host's Inductor can emit vectors of
    that width (elsewhere, e.g. on aarch64, forcing a width the CPU lacks would turn
    vectorization off)."""
    from torch._inductor.cpu_vec_isa import valid_vec_isa_list

    wait_probes()
    widths = {isa.bit_width() for isa in valid_vec_isa_list()}
    return {"cpp.simdlen": DERIVATIVE_SIMDLEN} if DERIVATIVE_SIMDLEN in widths else {}


def derivative_configs() -> dict[str, Any]:
    """:data:`DERIVATIVE_CONFIGS` plus the 256-bit vector width where available."""
    return {**DERIVATIVE_CONFIGS, **_simdlen_config()}


def scalarized_configs() -> dict[str, Any]:
    """:data:`~neml2.aoti.compile._scalarize.SCALARIZED_CONFIGS` plus the 256-bit vector width
    where available."""
    from neml2.aoti.compile._scalarize import SCALARIZED_CONFIGS

    return {**SCALARIZED_CONFIGS, **_simdlen_config()}


@dataclass
class GraphJob:
    """One graph to write: its file name, exported program (or a saved copy's path), whether it
    computes derivatives (lowered with :func:`derivative_configs`) and whether the program was
    scalarized (lowered with :func:`scalarized_configs`)."""

    filename: str
    program: Any
    derivatives: bool = False
    scalarized: bool = False

    @property
    def inductor_configs(self) -> dict[str, Any]:
        """The Inductor options of this graph."""
        if self.scalarized:
            extra = scalarized_configs()
        else:
            extra = derivative_configs() if self.derivatives else {}
        return {**INDUCTOR_CONFIGS, **extra}


def _clear_caches(module: nn.Module) -> None:
    """Drop per-instance value caches so no traced (fake) value survives an export."""
    for m in module.modules():
        clear = getattr(m, "clear_value_caches", None)
        if callable(clear):
            clear()


def _batch_one_ok(ep: torch.export.ExportedProgram, example: Sequence[torch.Tensor]) -> bool:
    """True if the exported program accepts a batch of 1 (no ``B != 1`` guard was recorded)."""
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            ep.module()(*[e[:1] for e in example])
    except Exception:
        return False
    return True


def copied_inputs(ep: torch.export.ExportedProgram) -> list[int] | None:
    """For a graph whose every output is one of its inputs (a copy): the input index of each
    output; else ``None``."""
    user = list(ep.graph_signature.user_inputs)
    out: list[int] = []
    for node in ep.graph.nodes:
        if node.op != "output":
            continue
        for arg in node.args[0]:
            while getattr(arg, "op", None) == "call_function" and str(arg.target) in (
                "aten.clone.default", "aten.alias.default", "aten.view.default",
            ):  # fmt: skip
                arg = arg.args[0]
            if getattr(arg, "op", None) != "placeholder" or arg.name not in user:
                return None
            out.append(user.index(arg.name))
    return out


def rows_independent(ep: torch.export.ExportedProgram, example: Sequence[torch.Tensor]) -> bool:
    """True if row ``i`` of every output depends on row ``i`` of the arguments only.

    The outputs on ``example`` must equal the leading rows of the outputs on ``example`` with
    changed rows appended (``1.5 x + 0.25``: a batch sum, mean or extremum then sees other
    values). False when the program cannot be evaluated that way. The runtime splits only such
    graphs into row blocks.
    """
    from torch.utils._pytree import tree_leaves

    def widened(x: torch.Tensor) -> torch.Tensor:
        other = 1.5 * x + 0.25 if x.is_floating_point() else x
        return torch.cat([x, other])

    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            f = ep.module()
            base = tree_leaves(f(*example))
            wide = tree_leaves(f(*[widened(x) for x in example]))
    except Exception:
        return False
    for a, b in zip(base, wide, strict=True):
        tol = 1e-10 if a.dtype == torch.float64 else 1e-4
        if not torch.allclose(b[: a.shape[0]], a, rtol=tol, atol=tol, equal_nan=True):
            return False
    return True


def export_graph(
    adapter: nn.Module,
    example: Sequence[torch.Tensor],
    dynamic: bool,
    row_multiple: int = 1,
    least: int = 1,
) -> tuple[torch.export.ExportedProgram, int]:
    """``(program, min_batch)``: ``torch.export`` of ``adapter`` on ``example`` (batch on axis 0
    of every argument) and the smallest batch it accepts (1, or 2 when the traced code branched
    on ``B == 1``; the runtime pads smaller batches). ``least`` = 2: the trace of an earlier graph
    of the model guarded ``B != 1``, so min_batch is 2 anyway and the export for a batch of 1 is
    not tried (a trace costs seconds).

    ``row_multiple`` > 1 (dynamic only): the batch axis is exported as ``row_multiple * k``
    (``example``'s batch must be such a multiple, of at least two): the program then takes
    only such batches (its graph signature records them, see
    :func:`~neml2.aoti.compile._signature.batch_rows`), and min_batch is 1 since the runtime
    pads every call to one."""
    import torch.fx.experimental._config as fx_config
    from torch.export import Dim

    _clear_caches(adapter)
    last: Exception | None = None
    if not example:  # no inputs (constant outputs): nothing carries a batch
        dynamic = False
    if dynamic and row_multiple > 1 and example[0].shape[0] % row_multiple:
        raise ValueError(f"example batch {example[0].shape[0]} is no multiple of {row_multiple}")
    for lo in [lo for lo in (1, 2) if lo >= least] if dynamic else [0]:
        shapes = None
        if lo and row_multiple > 1:
            rows = row_multiple * Dim("rows", min=lo, max=(2**31 - 2) // row_multiple)
            shapes = (tuple({0: rows} for _ in example),)
        elif lo:
            shapes = (tuple({0: Dim("batch", min=lo, max=2**31 - 2)} for _ in example),)
        try:
            # size-oblivious: treat the batch as "any size >= 1" instead of specializing 0/1
            with (
                warnings.catch_warnings(),
                torch.no_grad(),
                fx_config.patch(backed_size_oblivious=True),  # type: ignore[attr-defined]
            ):
                warnings.simplefilter("ignore")
                ep = torch.export.export(
                    adapter, tuple(example), dynamic_shapes=shapes, strict=False
                )
        except torch._dynamo.exc.UserError as e:  # a B != 1 guard: retry with min = 2
            last = e
            continue
        finally:
            _clear_caches(adapter)
        if not dynamic:
            return ep, int(example[0].shape[0]) if example else 1
        if row_multiple > 1:
            return ep, 1
        return ep, 1 if lo == 1 and _batch_one_ok(ep, example) else 2
    assert last is not None
    raise last


def _input_dependence(ep: torch.export.ExportedProgram) -> dict[Any, bool]:
    """Per graph node: True when its value depends on a user input's values (input sizes, and
    constants such as baked parameters, do not count)."""
    user = set(ep.graph_signature.user_inputs)
    dep: dict[Any, bool] = {}
    for node in ep.graph.nodes:  # topological order
        if node.op == "placeholder":
            dep[node] = node.name in user
        elif node.op == "call_function" and node.target is torch.ops.aten.sym_size.int:
            dep[node] = False
        else:
            dep[node] = any(dep[a] for a in node.all_input_nodes)
    return dep


def input_independent_outputs(ep: torch.export.ExportedProgram) -> list[bool]:
    """Per graph output: True when its value depends on no user input's values (only on
    constants and on input sizes, e.g. a constant block expanded to the batch)."""
    dep = _input_dependence(ep)
    out = next(n for n in ep.graph.nodes if n.op == "output")
    return [not dep.get(a, False) for a in out.args[0]]


#: Inductor inlines a 0-d constant (a baked Scalar parameter) as a literal, and its ``pow``
#: lowering then finds no tensor to take the dtype from (torch 2.13: ``LoweringException:
#: StopIteration`` on ``aten.pow.Tensor_Scalar``, e.g. the :math:`\gamma^3` of
#: ``NucleationBarrierAndCriticalRadius``). A graph that raises a 0-d value computed from
#: constants alone to a power keeps its tensor constants as buffers instead (a load per kernel,
#: not a literal).
KEEP_TENSOR_CONSTANTS = {"always_keep_tensor_constants": True}


def constant_configs(ep: torch.export.ExportedProgram) -> dict[str, Any]:
    """:data:`KEEP_TENSOR_CONSTANTS` when a ``pow`` of ``ep`` has a 0-d base that depends on no
    user input, else nothing."""
    dep = _input_dependence(ep)
    aten = torch.ops.aten
    pows = (aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor)
    for node in ep.graph.nodes:
        if node.op == "call_function" and node.target in pows:
            base = node.args[0]
            val = base.meta.get("val") if isinstance(base, torch.fx.Node) else None
            if isinstance(val, torch.Tensor) and val.dim() == 0 and not dep[base]:
                return dict(KEEP_TENSOR_CONSTANTS)
    return {}


def _is_cpp_compile_error(e: BaseException) -> bool:
    """True if ``e`` is Inductor's C++ compile failure (raised as is or wrapped)."""
    from torch._inductor.exc import CppCompileError

    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, CppCompileError):
            return True
        seen = getattr(seen, "inner_exception", None) or seen.__cause__
    return False


def known_inductor_configs(configs: dict[str, Any]) -> dict[str, Any]:
    """The options of ``configs`` that the installed Inductor knows.

    Every option set here is a tuning knob (the measurements above), so one that an older torch
    lacks (``realize_cpu_opcount_threshold`` is not in torch 2.11) is left out: the graphs stay
    the same functions and only lose that speedup. Inductor itself rejects unknown options.
    """
    from torch._inductor import config

    known = config.get_config_copy()
    return {key: value for key, value in configs.items() if key in known}


def _compile_package(program: Any, path: str, configs: dict[str, Any]) -> str:
    """The package of ``program`` at ``path``, recording its
    :func:`~neml2.aoti.compile._signature.graph_signature`."""
    options = known_inductor_configs(
        {**configs, **constant_configs(program), **signature_config(program)}
    )
    with warnings.catch_warnings(), overlapped_objects(), noexecstack_links():
        warnings.simplefilter("ignore")
        out = torch._inductor.aoti_compile_and_package(
            program, package_path=path, inductor_configs=options
        )
    return str(out)


def _attempts(configs: dict[str, Any]) -> list[tuple[bool, dict[str, Any]]]:
    """The lowerings :func:`_lower` tries in turn: ``(raw output views, Inductor options)``."""
    out = [(True, configs), (False, configs)]
    if configs.get(WRAPPER_OPT_LEVEL, FALLBACK_WRAPPER_OPT) != FALLBACK_WRAPPER_OPT:
        out.append((False, {**configs, WRAPPER_OPT_LEVEL: FALLBACK_WRAPPER_OPT}))
    return out


def _lower(program: Any, path: str, configs: dict[str, Any]) -> str:
    """Lower ``program`` (or the saved program at that path) into the package ``path``.

    The wrapper declares slices of the graph's outputs as raw pointers
    (:func:`~neml2.aoti.compile._wrapper.raw_output_views`). A C++ compile failure is retried
    with Inductor's own wrapper, then once more with it at :data:`FALLBACK_WRAPPER_OPT`
    (optimizing a very large wrapper function can crash the compiler); a last failure raises.
    """
    if isinstance(program, str):
        program = torch.export.load(program)
    wait_probes()
    attempts = _attempts(configs)
    for k, (raw, options) in enumerate(attempts):
        try:
            with raw_output_views() if raw else nullcontext():
                return _compile_package(program, path, options)
        except Exception as e:
            if k + 1 == len(attempts) or not _is_cpp_compile_error(e):
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


def _worker_init() -> None:
    torch.set_num_threads(1)
    start_probes()  # while the worker loads its first saved program


def lower_all(
    jobs: Sequence[GraphJob],
    leaf: Path,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Lower every job into ``leaf/<filename>``; ``progress(path)`` after each file is written
    (in the order they are; the paths are returned in that order)."""
    leaf.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    n_jobs = max(1, min(n_jobs, len(jobs)))
    if n_jobs == 1:
        for job in jobs:
            path = leaf / job.filename
            _lower(job.program, str(path), job.inductor_configs)
            out.append(path)
            if progress is not None:
                progress(str(path))
        return out
    local, *remote = sorted(jobs, key=_program_size, reverse=True)

    def done(job: GraphJob) -> None:
        out.append(leaf / job.filename)
        if progress is not None:
            progress(str(leaf / job.filename))

    with tempfile.TemporaryDirectory(prefix="neml2-compile-") as tmp:
        ctx = get_context("spawn")
        with ProcessPoolExecutor(n_jobs - 1, mp_context=ctx, initializer=_worker_init) as pool:
            futs = {}
            for k, job in enumerate(remote):
                saved = os.path.join(tmp, f"ep{k}.pt2")
                torch.export.save(job.program, saved)
                fut = pool.submit(_lower, saved, str(leaf / job.filename), job.inductor_configs)
                futs[fut] = job
            try:
                _lower(local.program, str(leaf / local.filename), local.inductor_configs)
            except BaseException:
                for fut in futs:
                    fut.cancel()
                raise
            done(local)
            for fut in as_completed(futs):
                fut.result()
                done(futs[fut])
    return out


def _program_size(job: GraphJob) -> int:
    """Nodes of the job's program (0 for a saved one): how long it takes to lower, roughly."""
    program = job.program
    return 0 if isinstance(program, str) else len(program.graph.nodes)
