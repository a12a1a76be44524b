r"""``compile_model``: the Python equivalent of ``neml2-compile`` (``docs/guide/artifacts.md``).

Per requested ``(device, dtype)`` leaf: look the request up in the compile cache
(:mod:`._cache`); on a miss load and validate it (:mod:`._prepare`), plan the graphs
(:mod:`._plan`), export and lower them (:mod:`._lower`), and store the leaf in the cache. Then
write ``metadata.json`` and the stub. Progress lines ``[k/N] <file>`` go to ``progress``.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from neml2.aoti.compile._cache import (
    cache_key,
    cached_graphs,
    entry_lock,
    graph_key,
    load_entry,
    store_entry,
)
from neml2.aoti.compile._errors import CompileError
from neml2.aoti.compile._graphs import ForwardGraph
from neml2.aoti.compile._lower import (
    GraphJob,
    copied_inputs,
    export_graph,
    input_independent_outputs,
    lower_all,
    rows_independent,
)
from neml2.aoti.compile._metadata import FORMAT, SCHEMA_VERSION, merge_leaves, write_metadata
from neml2.aoti.compile._plan import Plan, Renames, plan
from neml2.aoti.compile._prepare import Prepared, prepare
from neml2.aoti.compile._scalarize import Unsupported, scalarize, scalarized_chunk_rows
from neml2.aoti.compile._signature import cpu_features, leaf_digests
from neml2.aoti.compile._stub import write_stub
from neml2.aoti.compile._value_free import value_free_key
from neml2.aoti.compile._vec_isa import start_probes
from neml2.settings import Settings

__all__ = ["compile_model"]

_log = logging.getLogger(__name__)

#: The graphs of an implicit segment that run in every Newton iteration; each is scalarized
#: (:mod:`._scalarize`) when its ops allow it.
NEWTON_GRAPHS = ("jacobian", "residual")

_DTYPES = {"float64": torch.float64, "float32": torch.float32}
_BATCH = re.compile(r"^\(\s*([0-9,\s]*?)\s*(?:;\s*([0-9,\s]*?)\s*)?\)$")


def _dims(text: str, what: str) -> tuple[int, ...]:
    toks = [t.strip() for t in text.split(",") if t.strip()]
    try:
        return tuple(int(t) for t in toks)
    except ValueError:
        raise CompileError(f"{what}: invalid dimension in {text!r}") from None


def parse_batch(text: str, what: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """``'(2,)'`` → ``((2,), None)``; ``'(2; 3)'`` → ``((2,), (3,))``."""
    m = _BATCH.match(text.strip().strip("'\""))
    if m is None:
        raise CompileError(f"{what}: expected '(dyn,)' or '(dyn; sub)', got {text!r}")
    sub = None if m.group(2) is None else _dims(m.group(2), what)
    return _dims(m.group(1), what), sub


def _example_batch(
    spec: str | Sequence[str] | None, settings: Settings | None
) -> tuple[int | None, dict[str, tuple[int, ...]]]:
    """``(example batch size or None, {variable: sub-batch override})``."""
    dyns: list[tuple[int, ...]] = []
    subs: dict[str, tuple[int, ...]] = {}
    items = [spec] if isinstance(spec, str) else list(spec or ())
    named = [s for s in items if "=" in s]
    if named and len(named) != len(items):
        raise CompileError(
            "--example-batch-shape: give one uniform '(2,)' or repeated name='(dyn;sub)', not both"
        )
    for s in items:
        name, _, body = s.partition("=") if "=" in s else ("", "", s)
        dyn, sub = parse_batch(body, f"--example-batch-shape {s}")
        dyns.append(dyn)
        if name and sub is not None:
            subs[name.strip()] = sub
    if not items and settings is not None:
        # [Settings]/example_batch_shape: uniform '(2,)', or per variable 'name = (dyn; sub)'
        # (then the same as --example-batch-shape name='(dyn;sub)')
        if settings.example_batch_shape is not None:
            dyns.append(tuple(settings.example_batch_shape.dynamic))
        for name, v in settings.per_variable.items():
            dyns.append(tuple(v.dynamic))
            if v.sub is not None:
                subs[name] = tuple(v.sub)
    sizes = {d for d in dyns if d}
    for d in sizes:
        if len(d) != 1:
            raise CompileError(
                f"example batch shape {d}: compiled graphs have exactly one dynamic batch axis"
            )
    if len(sizes) > 1:
        raise CompileError(
            f"example batch shapes {sorted(sizes)} differ: all variables share one batch axis"
        )
    return (next(iter(sizes))[0] if sizes else None), subs


def _renames(prep: Prepared, pairs: Mapping[str, Sequence[str]], driver: str | None) -> Renames:
    rn = Renames()
    if driver is not None and any(pairs.values()):
        raise CompileError("--rename-input/-output/-parameter are only allowed with --model")
    pools = {
        "input": [v.name for v in prep.inputs],
        "output": [v.name for v in prep.outputs],
        "parameter": [p.name for p in prep.params],
    }
    for kind, specs in pairs.items():
        table = {"input": rn.inputs, "output": rn.outputs, "parameter": rn.parameters}[kind]
        for spec in specs:
            old, sep, new = spec.partition(":")
            if not sep or not old or not new:
                raise CompileError(f"--rename-{kind} {spec}: expected OLD:NEW")
            if old not in pools[kind]:
                raise CompileError(
                    f"--rename-{kind} {spec}: unknown {kind} '{old}' (available: "
                    f"{', '.join(pools[kind]) or 'none'})"
                )
            table[old] = new
        names = [table.get(n, n) for n in pools[kind]]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise CompileError(f"--rename-{kind}: the new names are not unique ({', '.join(dup)})")
    return rn


def _input_text(input_file: Path, overrides: Sequence[str], pre: Sequence[str]) -> str:
    from neml2.hit import HitError, parse_file, write

    try:
        return write(parse_file(input_file, pre="\n".join(pre), overrides=list(overrides)))
    except (HitError, ValueError) as e:
        raise CompileError(" ".join(str(e).split())) from None


def _common_meta(prep: Prepared, rn: Renames, seg: dict[str, Any], cfg: Any, batch: int,
                 dynamic: bool) -> dict[str, Any]:  # fmt: skip
    def var(v: Any, name: str) -> dict[str, Any]:
        return {"name": name, "var_type": v.var_type, "base_shape": list(v.base_shape),
                "sub_batch_shape": list(v.sub_batch_shape), "var_size": v.var_size}  # fmt: skip

    meta: dict[str, Any] = {
        "dynamic_batch": dynamic,
        "example_batch": batch,
        "inputs": [var(v, rn.i(v.name)) for v in prep.inputs],
        "outputs": [var(v, rn.o(v.name)) for v in prep.outputs],
        "parameters": _parameter_meta(prep, rn),
        "derivatives": [[rn.o(o), rn.i(i)] for o, i in prep.pairs],
        "parameter_derivatives": [[rn.o(o), rn.p(p)] for o, p in prep.param_pairs],
        "segments": [seg],
        "renames": {"inputs": rn.inputs, "outputs": rn.outputs, "parameters": rn.parameters},
    }
    if prep.site_diagonal:
        meta["site_diagonal_derivatives"] = [
            [rn.o(o), rn.i(i)] for o, i in prep.pairs if (o, i) in prep.site_diagonal
        ]
    if cfg is not None:
        meta["solver_config"] = cfg
    return meta


def _parameter_meta(prep: Prepared, rn: Renames) -> list[dict[str, Any]]:
    """``metadata.json`` ``parameters``: the promoted parameters with their stored values."""
    return [
        {
            "name": rn.p(p.name),
            "var_type": p.var_type,
            "base_shape": list(p.base_shape),
            "shape": list(p.shape),
            "values": p.value.double().flatten().tolist(),
            "origin": p.origin,
        }
        for p in prep.params
    ]


def _versions() -> dict[str, Any]:
    from neml2.aoti.__about__ import __version__ as aoti_version
    from neml2.models.__about__ import __version__ as models_version

    return {
        "torch_version": torch.__version__,
        "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "neml2_version": aoti_version,
        "neml2_models_version": models_version,
    }


def _load_fingerprint(entry: str) -> str:
    """A ``--load`` entry for the cache key: its path and a hash of its content (when a file),
    so an edited extension module is never served stale graphs."""
    f = Path(entry)
    if not f.is_file():
        return entry
    return f"{entry}#{hashlib.sha256(f.read_bytes()).hexdigest()[:16]}"


def compile_model(
    input_file: str | Path,
    *,
    model: str | None = None,
    driver: str | None = None,
    output_dir: str | Path = "aoti",
    artifact_dir: str | Path | None = None,
    devices: Sequence[str] = ("cpu",),
    dtype: str = "float64",
    jobs: int = 1,
    stub: bool = True,
    promote: Sequence[str] = (),
    derivatives: Sequence[str] = (),
    example_batch_shape: str | Sequence[str] | None = None,
    dynamic_batch: bool | None = None,
    rename_inputs: Sequence[str] = (),
    rename_outputs: Sequence[str] = (),
    rename_parameters: Sequence[str] = (),
    overrides: Sequence[str] = (),
    pre: Sequence[str] = (),
    load: Sequence[str] = (),
    use_cache: bool = True,
    plan_only: bool = False,
    progress: Callable[[str], None] | None = None,
    scalarize_newton: bool = True,
) -> dict[str, Any]:
    """Compile ``[Models/model]`` (or the model of ``[Drivers/driver]``); returns the metadata.

    Writes ``<output_dir>/<name>/metadata.json``, ``<output_dir>/<name>/<device>/<dtype>/*.pt2``
    and (``stub``) ``<output_dir>/<name>_aoti.i``; ``artifact_dir`` names the artifact folder
    itself instead of ``<output_dir>/<name>``. ``overrides`` are HIT command-line overrides and
    ``pre`` HIT snippets placed before the file. Raises :class:`CompileError` on a bad request.
    ``plan_only``: validate, plan and write metadata and stub, but export and lower nothing
    (the progress lines then list the graphs that a compile would plan; a jvp graph whose blocks
    all turn out constant on export is then folded into the metadata, not written).
    ``scalarize_newton``: re-export the residual/Jacobian graphs of implicit segments component by
    component (:mod:`._scalarize`) where their ops allow it; False lowers them as exported.
    """
    from neml2.factory import load_module

    if (model is None) == (driver is None):
        raise CompileError("give exactly one of --model NAME and --driver NAME")
    if dtype not in _DTYPES:
        raise CompileError(f"--dtype {dtype}: expected float64 or float32")
    if jobs < 1:
        raise CompileError(f"-j {jobs}: the number of jobs must be >= 1")
    devs = list(dict.fromkeys(torch.device(d).type for d in devices)) or ["cpu"]
    for d in devs:
        if d != "cpu" and not (d == "cuda" and torch.cuda.is_available()):
            raise CompileError(f"--device {d}: not available on this machine")
    path = Path(input_file)
    if not path.is_file():
        raise CompileError(f"input file '{input_file}' does not exist")
    try:
        for extension in load:
            load_module(extension)
    except Exception as e:
        raise CompileError(f"--load: {' '.join(str(e).split())}") from None
    text = _input_text(path, overrides, pre)
    out = Path(output_dir)
    tdtype = _DTYPES[dtype]
    options = {
        "model": model, "driver": driver, "promote": sorted(set(promote)),
        "derivatives": list(derivatives), "example_batch_shape": example_batch_shape,
        "dynamic_batch": dynamic_batch, "renames": [list(rename_inputs), list(rename_outputs),
        list(rename_parameters)], "dtype": dtype, "load": [_load_fingerprint(x) for x in load],
        "scalarize_newton": scalarize_newton,
    }  # fmt: skip
    results: list[tuple[str, str, dict[str, Any], dict[str, str], list[str]]] = []
    counter = [0]
    total = [0]

    def report(p: str) -> None:
        counter[0] += 1
        if progress is not None:
            progress(f"[{counter[0]}/{total[0]}] {p}")

    def root_of(name: str) -> Path:
        return out / name if artifact_dir is None else Path(artifact_dir)

    renames = {"input": rename_inputs, "output": rename_outputs, "parameter": rename_parameters}
    features = cpu_features()
    cached = use_cache and not plan_only

    def from_entry(
        src: Path, data: dict[str, Any], dev: str
    ) -> tuple[str, dict[str, Any], list[Path]]:
        """Install a cache entry's graphs as this device's leaf: (name, metadata, files)."""
        total[0] += len(data["files"])
        leaf = root_of(data["name"]) / dev / dtype
        return data["name"], data["meta"], _copy_leaf(src, data["files"], leaf, report)

    for dev in devs:
        request = {**options, "device": dev, "cpu_features": features}
        key = cache_key(text, request)
        with entry_lock(key) if cached else contextlib.nullcontext():
            hit = load_entry(key) if cached else None
            if hit is not None:
                name, meta, files = from_entry(*hit, dev)
                results.append((dev, name, meta, leaf_digests(files), features))
                continue
            prep, batch, dynamic, rn = _prepare(
                path, model, driver, overrides, dev, tdtype, promote, derivatives,
                example_batch_shape, dynamic_batch, renames, pre,
            )  # fmt: skip
            # the same request but for the values of promoted parameters: the same graphs
            vkey = None
            if cached:
                vkey = value_free_key(
                    prep, lambda extra: _input_text(path, [*overrides, *extra], pre), request,
                    cache_key,
                )  # fmt: skip
            with entry_lock(vkey) if vkey else contextlib.nullcontext():
                vhit = load_entry(vkey) if vkey else None
                if vhit is not None:
                    src, data = vhit
                    meta = {**data["meta"], "parameters": _parameter_meta(prep, rn)}
                    name, meta, files = from_entry(src, {**data, "meta": meta}, dev)
                    store_entry(key, files, {"name": name, "meta": meta})
                    results.append((dev, name, meta, leaf_digests(files), features))
                    continue
                if dev == "cpu" and not plan_only:
                    start_probes()  # Inductor's ISA probes, while the graphs are exported
                pl = plan(prep, rn, batch, torch.zeros((), dtype=tdtype, device=dev))
                name = prep.name
                leaf = root_of(name) / dev / dtype
                meta = _common_meta(prep, rn, pl.segment, pl.solver_config, batch, dynamic)
                total[0] += len(pl.graphs)
                if plan_only:
                    for fp in [leaf / fname for fname, _, _ in pl.graphs]:
                        report(str(fp))
                    results.append((dev, name, meta, {}, features))
                    continue
                target = {"device": dev, "cpu_features": features} if cached else None
                files = _build_leaf(
                    pl, meta, leaf, dynamic, jobs, total, report, scalarize_newton, target
                )
                if cached:
                    for k in (key, vkey):
                        if k is not None:
                            store_entry(k, files, {"name": prep.name, "meta": meta})
        results.append((dev, name, meta, leaf_digests(files), features))
    name = results[0][1]
    meta = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "name": name,
        **_versions(),
        "leaves": [
            {
                "device": d,
                "dtype": dtype,
                "path": f"{d}/{dtype}",
                "sha1": digests,
                "cpu_features": features,
            }
            for d, _, _, digests, features in results
        ],
        **results[0][2],
    }
    root = root_of(name)
    if plan_only:
        meta["leaves"] = []
    write_metadata(root, merge_leaves(root, meta) if not plan_only else meta)
    if stub:
        write_stub(path, overrides, name, root, out / f"{name}_aoti.i", driver is not None, pre=pre)
    return meta


def _build_leaf(
    pl: Plan,
    meta: dict[str, Any],
    leaf: Path,
    dynamic: bool,
    jobs: int,
    total: list[int],
    report: Callable[[str], None],
    scalarize_newton: bool = True,
    target: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Export every planned graph, drop a copy-only predictor, scalarize the Newton graphs
    (``scalarize_newton``, dynamic batch only), lower the rest into ``leaf``: through the graph
    cache for ``target`` (device, CPU features), or all of them when ``target`` is None."""
    todo = []
    min_batch = 1
    least = 1  # 2 once a trace guarded B != 1: the model's other graphs then start there
    for fname, adapter, example in pl.graphs:
        ep, mb = export_graph(adapter, example, dynamic, least=least)
        least = max(least, mb) if dynamic else least
        if pl.segment.get("kind") == "implicit" and pl.segment["graphs"].get("jacobian") == fname:
            # the runtime splits the implicit graphs into row blocks only when rows are independent
            pl.segment["rows_independent"] = dynamic and rows_independent(ep, example)
        if isinstance(adapter, ForwardGraph) and adapter.mode == "jvp":
            folded = _constant_blocks_once(adapter, ep, mb, pl.segment, example, dynamic)
            if folded is None:  # every block is a constant kept in the metadata: no graph
                total[0] -= 1
                continue
            ep, mb = folded
        pred = pl.segment.get("predictor")
        if pred is not None and pl.segment["graphs"].get("predictor") == fname:
            copies = copied_inputs(ep)
            if copies is not None:  # a pure copy: the runtime copies, no graph
                pred["identity"] = True
                pred["copy_from"] = [pred["inputs"][k] for k in copies]
                del pl.segment["graphs"]["predictor"]
                total[0] -= 1
                continue
        scalar = False
        if scalarize_newton and dynamic and _is_newton_graph(pl.segment, fname):
            try:
                ep, mb = scalarize(ep, example)
                scalar = True
            except Unsupported as e:
                _log.info("%s stays as exported: %s", fname, e)
            if scalar and pl.segment["graphs"].get("jacobian") == fname:
                # dtype-independent: every leaf of the artifact shares the metadata
                pl.segment["chunk_rows"] = scalarized_chunk_rows(pl.segment["n_unknowns"])
        mode = getattr(adapter, "mode", "value")
        todo.append(GraphJob(fname, ep, mode not in ("value", "residual"), scalar))
        min_batch = max(min_batch, mb)
    meta["min_batch"] = min_batch
    staging = _staging(leaf)
    try:
        _lower_leaf(todo, staging, jobs, lambda name: report(str(leaf / name)), target)
        _install(staging, leaf)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [leaf / j.filename for j in todo]


def _lower_leaf(
    todo: Sequence[GraphJob],
    staging: Path,
    jobs: int,
    report: Callable[[str], None],
    target: Mapping[str, Any] | None,
) -> None:
    """Lower ``todo`` into ``staging`` (``report(file name)`` per graph written), taking every
    graph the graph cache holds for ``target`` from there; no cache when ``target`` is None."""

    def lower(names: list[str]) -> None:
        wanted = [job for job in todo if job.filename in names]
        lower_all(wanted, staging, jobs, lambda p: report(Path(p).name))

    if target is None:
        lower([job.filename for job in todo])
        return
    keys = {job.filename: graph_key(job.program, job.inductor_configs, target) for job in todo}
    lowered = cached_graphs(keys, staging, lower)
    for name in keys:
        if name not in lowered:
            report(name)


def _is_newton_graph(segment: dict[str, Any], fname: str) -> bool:
    """True for a graph of an implicit segment that runs in every Newton iteration."""
    graphs = segment.get("graphs", {})
    return segment.get("kind") == "implicit" and fname in (graphs.get(k) for k in NEWTON_GRAPHS)


def _constant_blocks_once(
    adapter: ForwardGraph,
    ep: torch.export.ExportedProgram,
    min_batch: int,
    segment: dict[str, Any],
    example: list[torch.Tensor],
    dynamic: bool,
) -> tuple[torch.export.ExportedProgram, int] | None:
    """Fold the Jacobian blocks of a jvp graph that depend on no input value (a constant
    stiffness): each is flagged ``batch_independent``. When every block is constant, their values
    go into the metadata (``jacobian_pairs[k].value``, row-major ``(*out_sub, *out_base, *in_sub,
    *in_base)``), the runtime pairs them with the value graph, and ``None`` says no jvp graph is
    needed; otherwise the graph is re-exported with the constant blocks as ``(1, ...)``."""
    n_values = len(adapter.outs)
    flags = input_independent_outputs(ep)[n_values:]
    if not any(flags):
        return ep, min_batch
    pairs = segment["jacobian_pairs"]
    for pair, const in zip(pairs, flags, strict=True):
        if const:
            pair["batch_independent"] = True
    if all(flags):
        with torch.no_grad():
            blocks = ep.module()(*example)[n_values:]
        for pair, block in zip(pairs, blocks, strict=True):
            pair["value"] = block[0].detach().to("cpu", torch.float64).flatten().tolist()
        del segment["graphs"]["jvp"]
        return None
    adapter.batch_independent = flags
    return export_graph(adapter, example, dynamic, least=min_batch)


def _copy_leaf(
    src: Path, names: Sequence[str], leaf: Path, report: Callable[[str], None]
) -> list[Path]:
    """Install the cached graphs ``src/<names>`` as ``leaf``."""
    staging = _staging(leaf)
    try:
        for f in names:
            shutil.copy2(src / f, staging / f)
        _install(staging, leaf)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    files = [leaf / f for f in names]
    for fp in files:
        report(str(fp))
    return files


def _staging(leaf: Path) -> Path:
    """A fresh private folder beside ``leaf`` (concurrent compiles never share files)."""
    leaf.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{leaf.name}-", dir=leaf.parent))
    staging.chmod(0o755)
    return staging


def _install(staging: Path, leaf: Path) -> None:
    """Replace ``leaf`` by ``staging`` (renames; readers see the old or the new leaf)."""
    old = None
    if leaf.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{leaf.name}-old-", dir=leaf.parent))
        os.replace(leaf, old / "leaf")
    os.replace(staging, leaf)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _prepare(
    path: Path,
    model: str | None,
    driver: str | None,
    overrides: Sequence[str],
    dev: str,
    tdtype: torch.dtype,
    promote: Sequence[str],
    derivatives: Sequence[str],
    example_batch_shape: str | Sequence[str] | None,
    dynamic_batch: bool | None,
    renames: Mapping[str, Sequence[str]],
    pre: Sequence[str],
) -> tuple[Prepared, int, bool, Renames]:
    import neml2

    try:
        settings = neml2.load_input(path, pre=list(pre), additional_args=list(overrides)).settings
    except Exception as e:
        raise CompileError(f"{path}: {' '.join(str(e).split())}") from None
    batch, subs = _example_batch(example_batch_shape, settings)
    dynamic = settings.dynamic_batch if dynamic_batch is None else dynamic_batch
    batch = 2 if batch is None else batch
    if dynamic and batch < 2:
        raise CompileError(
            f"--example-batch-shape: example batch {batch} with a dynamic batch; use >= 2 "
            f"(torch specializes sizes 0 and 1)"
        )
    # loaded in float64 so the recorded parameter values do not depend on the leaf dtype
    prep = prepare(
        path, model=model, driver=driver, overrides=overrides, device=dev, dtype=torch.float64,
        promote=promote, derivatives=derivatives, sub_batch=subs, pre=pre,
    )  # fmt: skip
    if tdtype != torch.float64:
        prep.model.to(tdtype)
    return prep, batch, dynamic, _renames(prep, renames, driver)
