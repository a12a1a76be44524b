"""Compiled artifacts (``neml2-compile``) for the compiled routes, cached per installation.

``<root>/<target key>/<model workload>/`` holds the artifact folder ``model/``, the stub
``model_aoti.i`` and ``compile.json`` (wall time and peak memory of the compile, measured with
``wait4`` on the child). The driver reuses the ``chaboche`` artifact. Compiled pairs: the value
and ``d stress / d strain`` (the consistent tangent a finite-element host needs).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.suite import _proc
from bench.suite._target import Target
from bench.suite._workloads import WORKLOADS, Workload

COMPILE_TIMEOUT = 420.0


@dataclass(frozen=True)
class CompileRecord:
    """Outcome of one ``neml2-compile`` (or of its cache lookup)."""

    target: str
    workload: str
    status: str  # "ok" or "n/a"
    reason: str = ""
    seconds: float = 0.0
    maxrss_mb: float = 0.0
    cached: bool = False


@dataclass(frozen=True)
class Artifact:
    folder: Path  # the artifact root for neml2.aoti.Model
    stub: Path  # the HIT stub that loads it as [Models]/model


class Artifacts:
    """Compile-on-demand cache; ``records`` keeps every compile's metrics for the report."""

    def __init__(self, root: Path, inputs: Path, quick: bool) -> None:
        self.root, self.inputs, self.quick = root.resolve(), inputs.resolve(), quick
        self.records: dict[tuple[str, str], CompileRecord] = {}

    @staticmethod
    def model_workload(workload: Workload) -> str:
        return "chaboche" if workload.name == "chaboche_driver" else workload.name

    def get(self, target: Target, workload: Workload) -> Artifact | str:
        """The artifact of ``workload`` for ``target``, or why there is none."""
        name = self.model_workload(workload)
        folder = self.root / target.key / name
        art = Artifact(folder / "model", folder / "model_aoti.i")
        meta = folder / "compile.json"
        if (target.label, name) not in self.records and meta.exists() and art.stub.exists():
            rec = CompileRecord(**{**json.loads(meta.read_text()), "cached": True})
            self.records[(target.label, name)] = rec
        if (target.label, name) not in self.records:
            self.records[(target.label, name)] = self._compile(target, name, folder, meta)
        rec = self.records[(target.label, name)]
        return art if rec.status == "ok" else rec.reason

    def _compile(self, target: Target, name: str, folder: Path, meta: Path) -> CompileRecord:
        exe = target.info.get("neml2_compile")
        if not exe:
            return CompileRecord(target.label, name, "n/a", "neml2-compile is not installed")
        if self.quick and name != "elasticity":
            why = "--quick compiles only elasticity; a full run caches this artifact"
            return CompileRecord(target.label, name, "n/a", why)
        folder.mkdir(parents=True, exist_ok=True)
        # both installations: 2 lowering jobs (this machine's cores), a cold compile (an empty
        # neml2-compile cache, so a previous run's cache entry is never what gets timed, and an
        # empty Inductor cache, so Inductor probes the vector ISAs as on a fresh machine)
        cmd = [*exe, "--model", "model", "--dtype", "float64", "-j", "2"]
        for pair in WORKLOADS[name].derivatives:
            cmd += ["-d", pair]
        cmd += ["--device", "cpu", "--output-dir", str(folder), str(self.inputs / f"{name}.i")]
        with tempfile.TemporaryDirectory(prefix="neml2-bench-cache-") as cache:
            env = {
                **_proc.thread_env(2),
                "NEML2_COMPILE_CACHE": cache,
                "TORCHINDUCTOR_CACHE_DIR": str(Path(cache) / "inductor"),
            }
            res = _proc.run(cmd, env, COMPILE_TIMEOUT, cwd=str(folder))
        if res.returncode != 0 or not (folder / "model_aoti.i").exists():
            return CompileRecord(target.label, name, "n/a", f"neml2-compile: {res.failure()}")
        rec = CompileRecord(target.label, name, "ok", "", res.wall, res.maxrss_mb)
        meta.write_text(json.dumps(asdict(rec)))
        return rec
