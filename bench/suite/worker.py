"""One benchmark cell in a fresh process, for any NEML2-compatible installation.

Self-contained on purpose (standard library, torch and the public NEML2 v3 Python API only:
``neml2.load_model``, ``neml2.load_input``, ``Model.input_spec``, ``Model.call_by_name``,
``Model.jacobian``, ``neml2.compile``, ``neml2.aoti.Model``), so the same file runs under the
reference interpreter of ``--compare``. The harness passes one JSON request as ``argv[1]`` and
reads one JSON line from stdout, prefixed with ``RESULT``.

Requests (``op``):

* ``probe``: versions and which routes the installation offers;
* ``cell``: time ``route`` on ``workload``/``mode`` at ``batch``: one warm-up call (its time is
  ``first``; for py-jit it includes compilation), then up to ``repeat`` timed calls, stopping
  early once ``budget`` seconds are spent and at least ``min_repeat`` calls are timed (one if
  the first timed call took over ``SLOW``);
* ``limits``: the machine's bandwidth and float64 FLOP rates (see :func:`limits`);
* ``iterations``: Newton iterations of a workload at batch 1 (read from the ``newton`` log).

Threads: the harness sets ``OMP_NUM_THREADS``/``MKL_NUM_THREADS``; ``threads`` is applied with
``torch.set_num_threads`` (one inter-op thread).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

F64 = torch.float64
STEP_STRAIN = (0.01, -0.005, -0.005, 0.0, 0.0, 0.0)  # 1 % uniaxial increment over dt = 1
ELASTIC_STRAIN = (1e-3, -3e-4, -3e-4, 2e-4, 0.0, 1e-4)
TAYLOR_RATE = (1e-3, -5e-4, -5e-4, 0.0, 0.0, 0.0)  # tension-type deformation rate over dt = 1
TAYLOR_SPIN = (0.0, 0.0, 3e-4)
COMPILE_MODULE = "neml2.aoti.compile.cli"
SLOW = 2.0  # s: a call this slow is timed once (after the warm-up)


def _text(inputs: Path, workload: str, batch: int) -> str:
    """HIT text of ``workload`` (the driver appends its ``${nbatch}``-substituted drive)."""
    if workload == "chaboche_driver":
        drive = (inputs / "chaboche_driver.i").read_text().replace("${nbatch}", str(batch))
        return (inputs / "chaboche.i").read_text() + "\n" + drive
    return (inputs / f"{workload}.i").read_text()


def _random_mrp(batch: int, seed: int = 2026) -> torch.Tensor:
    """Uniformly random orientations as MRPs ``(batch, 3)`` (Shoemake quaternions, w >= 0)."""
    u = torch.rand(batch, 3, dtype=F64, generator=torch.Generator().manual_seed(seed))
    a, b = torch.sqrt(1.0 - u[:, 0]), torch.sqrt(u[:, 0])
    q = torch.stack([a * torch.sin(2 * torch.pi * u[:, 1]), a * torch.cos(2 * torch.pi * u[:, 1]),
                     b * torch.sin(2 * torch.pi * u[:, 2]), b * torch.cos(2 * torch.pi * u[:, 2])],
                    dim=-1)  # fmt: skip
    q = torch.where(q[:, :1] < 0, -q, q)  # (w, x, y, z) with w >= 0: the principal chart
    return q[:, 1:] / (1.0 + q[:, :1])


def _raw_inputs(shapes: dict[str, tuple[int, ...]], batch: int) -> dict[str, torch.Tensor]:
    """Zero state and ``t = 1``, ``(batch, *base)`` each, with the workload's load: the
    benchmark's strain (elasticity, chaboche) or, for taylor, grains of random orientation
    under the tension-type deformation rate with spin."""
    out = {name: torch.zeros(batch, *base, dtype=F64) for name, base in shapes.items()}
    if "t" in out:
        out["t"].fill_(1.0)
    if "strain" in out:
        strain = STEP_STRAIN if "t" in out else ELASTIC_STRAIN
        out["strain"].copy_(torch.tensor(strain, dtype=F64).expand(batch, 6))
    if "deformation_rate" in out:
        out["deformation_rate"].copy_(torch.tensor(TAYLOR_RATE, dtype=F64).expand(batch, 6))
        out["vorticity"].copy_(torch.tensor(TAYLOR_SPIN, dtype=F64).expand(batch, 3))
        out["orientation~1"].copy_(_random_mrp(batch))
    return out


def _typed_inputs(model: Any, batch: int) -> dict[str, Any]:
    spec = model.input_spec
    raw = _raw_inputs({k: tuple(c.BASE_SHAPE) for k, c in spec.items()}, batch)
    return {k: spec[k](v) for k, v in raw.items()}


def _model_call(req: dict[str, Any]) -> Callable[[], object]:
    """The timed call of a py-eager / py-jit / py-aoti cell."""
    import neml2

    route, workload, mode, batch = req["route"], req["workload"], req["mode"], req["batch"]
    inputs = Path(req["inputs"])
    if workload == "chaboche_driver":
        return _driver_call(req, inputs, batch)
    if route == "py-aoti":
        import neml2.aoti

        aoti: Any = neml2.aoti.Model(str(Path(req["artifact"])))
        bases = aoti.input_base_shapes  # a dict by name, or a list in input_names order
        if not isinstance(bases, dict):
            bases = dict(zip(aoti.input_names, bases, strict=True))
        raw = _raw_inputs({n: tuple(bases[n]) for n in aoti.input_names}, batch)
        return (lambda: aoti.jacobian(raw)) if mode == "jacobian" else (lambda: aoti.forward(raw))
    model = neml2.load_model(str(inputs / f"{workload}.i"), "model")
    if route == "py-jit":
        neml2.compile(model)
    x = _typed_inputs(model, batch)
    return (lambda: model.jacobian(x)) if mode == "jacobian" else (lambda: model.call_by_name(x))


def _driver_call(req: dict[str, Any], inputs: Path, batch: int) -> Callable[[], object]:
    """100-step driver: a fresh driver per call from one file (the compiled stub for py-aoti)."""
    import neml2

    drive = (inputs / "chaboche_driver.i").read_text().replace("${nbatch}", str(batch))
    if req["route"] == "py-aoti":
        stub = Path(req["stub"])
        folder = stub.parent
        text = stub.read_text() + "\n" + drive
    else:
        folder = Path(tempfile.mkdtemp(prefix="neml2-bench-"))
        text = _text(inputs, "chaboche_driver", batch)
    path = folder / f"bench_driver_{os.getpid()}.i"
    path.write_text(text)
    factory = neml2.load_input(str(path))
    model = factory.get_model("model")
    if req["route"] == "py-jit":
        neml2.compile(model)

    def run() -> object:
        return factory.get_driver("driver").run()

    return run


def _time(fn: Callable[[], object], req: dict[str, Any]) -> dict[str, Any]:
    no_grad = req["mode"] == "forward"
    with torch.no_grad() if no_grad else torch.enable_grad():
        t0 = time.perf_counter()
        fn()
        first = time.perf_counter() - t0
        times: list[float] = []
        spent = 0.0
        while len(times) < req["repeat"]:
            slow = bool(times) and times[0] > SLOW
            if len(times) >= (1 if slow else req["min_repeat"]) and spent + first >= req["budget"]:
                break
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
            spent += times[-1]
    return {"first": first, "times": times}


def cell(req: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    fn = _model_call(req)
    setup = time.perf_counter() - t0
    return {"setup": setup, **_time(fn, req)}


def _rate(fn: Callable[[], object], work: float, repeat: int = 5) -> float:
    """Median ``work / seconds`` over ``repeat`` calls after a warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return work / statistics.median(times)


def limits(req: dict[str, Any]) -> dict[str, Any]:
    """Copy bandwidth (bytes read + written), float64 GFLOP/s of a large and a batched 19x19 matmul.

    ``copy``: ``y.copy_(x)`` over 2^25 doubles (2 x 256 MB). ``matmul``: 2048^3 (2 n^3 flops).
    ``bmm19``: 10^5 products of 19x19 matrices (2 * 19^3 flops each, the Chaboche system size).
    ``solve19``: ``torch.linalg.solve`` of 10^5 19x19 systems (2/3 n^3 + 2 n^2 flops each).
    """
    n_copy = 2**25
    x = torch.rand(n_copy, dtype=F64)
    y = torch.empty_like(x)
    copy = _rate(lambda: y.copy_(x), 16.0 * n_copy)
    n = 2048
    a, b = torch.rand(n, n, dtype=F64), torch.rand(n, n, dtype=F64)
    matmul = _rate(lambda: a @ b, 2.0 * n**3)
    nb = 10**5
    p = torch.rand(nb, 19, 19, dtype=F64)
    q = torch.rand(nb, 19, 19, dtype=F64)
    bmm = _rate(lambda: torch.bmm(p, q), 2.0 * 19**3 * nb)
    s = p + 19.0 * torch.eye(19, dtype=F64)
    r = torch.rand(nb, 19, 1, dtype=F64)
    solve = _rate(lambda: torch.linalg.solve(s, r), (2.0 / 3.0 * 19**3 + 2.0 * 19**2) * nb, 3)
    return {"copy_Bps": copy, "matmul_flops": matmul, "bmm19_flops": bmm, "solve19_flops": solve}


def iterations(req: dict[str, Any]) -> dict[str, Any]:
    """Newton iterations (summed over solves) of ``workload`` at batch 1 on this installation."""
    from neml2 import log

    counts: list[int] = []

    def sink(level: int, line: str) -> None:
        m = re.search(r"converged \(iters=(\d+)", line)
        if m and "NOT" not in line:
            counts.append(int(m.group(1)))

    log.set_default_level("newton", "info")
    log.set_sink(sink)
    req = {**req, "route": "py-eager", "batch": 1, "mode": "forward"}
    fn = _model_call(req)
    with torch.no_grad():
        fn()
    solves = len(counts)
    counts.clear()  # the driver builds its model lazily: count one call after warm-up
    with torch.no_grad():
        fn()
    return {"iterations": sum(counts), "solves": len(counts) or solves}


def probe(req: dict[str, Any]) -> dict[str, Any]:
    import neml2

    try:
        import neml2.aoti

        aoti = hasattr(neml2.aoti, "Model")
    except ImportError:
        aoti = False
    version = getattr(neml2, "__version__", None)
    if version is None:
        from importlib.metadata import PackageNotFoundError, version as dist_version

        try:
            version = dist_version("neml2")
        except PackageNotFoundError:
            version = dist_version("neml2-models")
    compiler: list[str] | None = None
    script = Path(sys.executable).with_name("neml2-compile")
    if script.exists():
        compiler = [str(script)]
    elif importlib.util.find_spec("neml2.aoti") and importlib.util.find_spec(COMPILE_MODULE):
        compiler = [sys.executable, "-m", COMPILE_MODULE]  # an editable install without scripts
    return {
        "python": sys.executable,
        "torch": torch.__version__,
        "neml2": version,
        "aoti_model": aoti,
        "compile": hasattr(neml2, "compile"),
        "neml2_compile": compiler,
        "fingerprint": _fingerprint(neml2),
    }


def _fingerprint(package: Any) -> str:
    """Path, size and modification time of every ``.py``/``.so`` file of the ``neml2`` package
    (all portions of a namespace package): it changes whenever the installation does, an edited or
    rebuilt development install included, so cached artifacts never outlive the compiler."""
    h = hashlib.sha1()
    for root in sorted(str(p) for p in package.__path__):
        for f in sorted(Path(root).rglob("*")):
            if f.suffix in (".py", ".so") and "__pycache__" not in f.parts:
                st = f.stat()
                h.update(f"{f}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


OPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "probe": probe,
    "cell": cell,
    "limits": limits,
    "iterations": iterations,
}


def main() -> int:
    req = json.loads(sys.argv[1])
    torch.set_num_threads(int(req.get("threads", 1)))
    torch.set_num_interop_threads(1)
    try:
        out = OPS[req["op"]](req)
    except Exception as e:  # reported to the harness as the cell's "n/a" reason
        out = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    print("RESULT " + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
