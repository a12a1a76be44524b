r"""
Compiling a model ahead of time
===============================

``neml2-compile`` exports a model's graphs with ``torch.export`` and lowers them with
AOTInductor into an *artifact*: a folder of compiled shared libraries plus a ``metadata.json``
that names every input, output, parameter and derivative. ``neml2.aoti.Model`` runs it from
Python (the py-aoti route); ``neml2::aoti::Model`` runs the same folder from C++ without Python
(see the C++ hosts).

The model here is linear isotropic elasticity, ``examples/elasticity.i``:
:math:`\boldsymbol\sigma = \lambda \operatorname{tr}(\boldsymbol\varepsilon) \mathbf I +
2 \mu \boldsymbol\varepsilon` with :math:`E` = 1000 and :math:`\nu` = 0.3.
"""

# %%
# Compile
# -------
# The same as ``neml2-compile examples/elasticity.i --model model --output-dir <dir>
# -d stress:strain``: ``-d OUT:IN`` (``derivatives``) asks for the derivative blocks
# ``jacobian`` returns; ``-d :`` compiles every output/input pair. The compiler keeps a cache (``$NEML2_COMPILE_CACHE``, by default ``~/.cache/neml2/compile``), so a
# second compile of the same request costs nothing.
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import torch

import neml2
import neml2.aoti
from neml2.aoti.compile import compile_model


def repository_root() -> Path:
    """The checkout holding ``examples/`` (the tutorials run from ``docs/``)."""
    here = Path.cwd().resolve()
    return next(p for p in (here, *here.parents) if (p / "examples").is_dir())


EXAMPLE = repository_root() / "examples" / "elasticity.i"
workdir = Path(tempfile.mkdtemp(prefix="neml2-tutorial-"))
start = time.perf_counter()
compile_model(
    EXAMPLE,
    model="model",
    output_dir=workdir,
    dtype="float64",
    derivatives=["stress:strain"],
    progress=print,
)
print(f"compiled in {time.perf_counter() - start:.1f} s")
for path in sorted((workdir / "model").rglob("*")):
    if path.is_file():
        print(f"{path.relative_to(workdir)}  ({path.stat().st_size // 1024} KiB)")

# %%
# What the artifact declares
# --------------------------
# ``metadata.json`` is the artifact's contract with every host: names, base shapes and dtypes
# of inputs and outputs, the compiled graphs and their content hashes.
metadata = json.loads((workdir / "model" / "metadata.json").read_text())
print(json.dumps({k: metadata[k] for k in ("inputs", "outputs") if k in metadata}, indent=1))

# %%
# Run it from Python
# ------------------
# Inputs are plain tensors of shape ``(*batch, *base)``: a symmetric strain is six Mandel
# components. We compare the compiled forward call with py-eager and with the closed form.
compiled = neml2.aoti.Model(workdir / "model")
eager = neml2.load_model(EXAMPLE, "model")

batch = 1000
gen = torch.Generator().manual_seed(0)
strain = 1e-3 * torch.randn(batch, 6, dtype=torch.float64, generator=gen)
out = compiled.forward({"strain": strain})["stress"]

E, nu = 1000.0, 0.3
lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
expected = 2 * mu * strain
expected[:, :3] += lam * strain[:, :3].sum(-1, keepdim=True)
torch.testing.assert_close(out, expected)
from neml2.tensors import SR2  # noqa: E402

torch.testing.assert_close(out, eager.value({"strain": SR2(strain)})["stress"].data)
print("forward: compiled = py-eager = closed form")

# %%
# The exact Jacobian
# ------------------
# ``jacobian`` returns the outputs and ``d stress / d strain`` per material point: the
# elasticity tensor in Mandel notation, the same at every point.
values, J = compiled.jacobian({"strain": strain})
C = J["stress"]["strain"]
C_expected = 2 * mu * torch.eye(6, dtype=torch.float64)
C_expected[:3, :3] += lam
torch.testing.assert_close(C, C_expected.expand(batch, 6, 6))
print("d stress / d strain at point 0:\n", C[0])


# %%
# Call cost against batch size
# ----------------------------
# Median of repeated forward calls on one thread, compiled against eager. Where the line is
# flat, a call's fixed cost dominates; where it grows, the arithmetic does. The numbers come
# from the machine that built this page.
def median_time(fn: Callable[[Any], object], arg: Any, repeat: int = 21) -> float:
    """Median wall time of ``repeat`` calls ``fn(arg)``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


torch.set_num_threads(1)
sizes = [1, 10, 100, 1_000, 10_000, 100_000]
t_aoti, t_eager = [], []
for n in sizes:
    x = 1e-3 * torch.randn(n, 6, dtype=torch.float64, generator=gen)
    t_aoti.append(median_time(compiled.forward, {"strain": x}))
    t_eager.append(median_time(eager.value, {"strain": SR2(x)}))
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.loglog(sizes, [t * 1e6 for t in t_eager], "o-", label="py-eager")
ax.loglog(sizes, [t * 1e6 for t in t_aoti], "s-", label="py-aoti (compiled)")
ax.set(xlabel="batch size", ylabel="time per forward call [µs]")
ax.legend()
ax.grid(alpha=0.3, which="both")
plt.show()
