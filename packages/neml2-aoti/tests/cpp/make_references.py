"""py-eager reference values for the C++ route-parity tests (``test_model.cpp``).

usage: ``make_references.py ARTIFACTS SCENARIOS OUT``

For every scenario ``<s>`` with an artifact ``ARTIFACTS/<s>/<name>/metadata.json`` and an input
file ``SCENARIOS/<s>.i``: deterministic inputs (a physically sensible state per scenario), the
py-eager forward values, Jacobian blocks of the compiled ``derivatives`` pairs, a jvp with
deterministic tangents and the parameter Jacobian of the compiled ``parameter_derivatives``,
all written to ``OUT/<s>.ref`` in a plain binary format read by ``reference.h``:

    b"NML2REF1", u32 count, then per tensor: u32 len, key (utf-8), u32 ndim, i64 dims, f64 data

Keys: ``in/<input>``, ``out/<output>``, ``J/<out>/<in>``, ``tan/<input>``, ``jvp/<out>``,
``PJ/<out>/<param>``, and ``iters`` (Newton updates py-eager took) for an implicit model.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

import torch

import neml2

BATCH = 5


def _raw(value: Any) -> torch.Tensor:
    """The plain tensor of a typed wrapper (or the tensor itself)."""
    return value if isinstance(value, torch.Tensor) else value.data


def _value(scenario: str, name: str, shape: list[int], gen: torch.Generator) -> torch.Tensor:
    """One deterministic input of a scenario: a physically sensible state."""

    def u(lo: float, hi: float, size: list[int] = shape) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(size, generator=gen, dtype=torch.float64)

    zeros = torch.zeros(shape, dtype=torch.float64)
    if name == "t":
        return u(0.5, 1.0)
    if name == "t~1":
        return zeros
    if scenario == "scalar_implicit":  # warm start x and old state x~1 of the cubic ODE
        return u(0.5, 1.0) if name == "x~1" else u(0.0, 0.2)
    if scenario == "taylor" and name == "orientation~1":  # grains of random orientation (MRP)
        return u(-0.4, 0.4)
    if name.endswith("~1"):
        return zeros
    if scenario == "chaboche" and name == "strain":
        # a 1 % (scaled 0.5..1) uniaxial strain increment with lateral contraction
        s = u(0.5, 1.0, [shape[0]]) * 0.01
        zeros[:, 0], zeros[:, 1], zeros[:, 2] = s, -0.3 * s, -0.3 * s
        return zeros
    return 1e-3 * torch.randn(shape, generator=gen, dtype=torch.float64)


def _inputs(scenario: str, meta: dict[str, Any], gen: torch.Generator) -> dict[str, torch.Tensor]:
    """Deterministic inputs (batch ``BATCH``) for every master input of the artifact."""
    return {
        v["name"]: _value(
            scenario, v["name"], [BATCH, *v["sub_batch_shape"], *v["base_shape"]], gen
        )
        for v in meta["inputs"]
    }


def _typed(model: Any, meta: dict[str, Any], raw: dict[str, torch.Tensor]) -> dict[str, Any]:
    """``raw`` as the model's typed inputs, each with its declared sub-batch."""
    sub = {v["name"]: len(v["sub_batch_shape"]) for v in meta["inputs"]}
    return {k: model.input_spec[k](v, sub_batch_ndim=sub[k]) for k, v in raw.items()}


def _eager_param(model: torch.nn.Module, name: str) -> str:
    """The eager name of a promoted parameter (a bare leaf's artifact name carries the model name)."""
    names = dict(model.named_parameters()) | dict(model.named_buffers())
    if name in names:
        return name
    tail = name.split(".", 1)[-1]
    if tail in names:
        return tail
    raise KeyError(f"parameter {name!r} not found in the eager model ({sorted(names)})")


def _write(path: Path, tensors: dict[str, torch.Tensor]) -> None:
    with path.open("wb") as f:
        f.write(b"NML2REF1")
        f.write(struct.pack("<I", len(tensors)))
        for key, t in tensors.items():
            t = t.detach().to(torch.float64).contiguous().cpu()
            k = key.encode()
            f.write(struct.pack("<I", len(k)) + k)
            f.write(struct.pack("<I", t.dim()))
            f.write(struct.pack(f"<{t.dim()}q", *t.shape))
            f.write(struct.pack(f"<{t.numel()}d", *t.flatten().tolist()))  # no numpy needed


def references(artifacts: Path, scenarios: Path, out: Path, scenario: str) -> bool:
    """Write ``out/<scenario>.ref``; False when the scenario's artifact is absent."""
    metas = sorted((artifacts / scenario).glob("*/metadata.json"))
    if not metas:
        return False
    meta = json.loads(metas[0].read_text())
    model = neml2.load_model(scenarios / f"{scenario}.i", meta["name"])
    gen = torch.Generator().manual_seed(20261122)
    raw = _inputs(scenario, meta, gen)
    tensors = {f"in/{k}": v for k, v in raw.items()}
    inputs = _typed(model, meta, raw)
    with torch.no_grad():
        values = model.value(inputs)
    tensors |= {f"out/{k}": _raw(v) for k, v in values.items()}
    result = getattr(model, "last_result", None)
    if result is not None:  # an ImplicitUpdate: the Newton updates py-eager took
        tensors["iters"] = torch.tensor(float(result.iterations))
    if meta["derivatives"]:
        _, J = model.jacobian(inputs)
        for o, i in meta["derivatives"]:
            block = J.get(o, {}).get(i)
            if block is None:  # a pair eager does not report is identically zero (warm start)
                ob = next(v for v in meta["outputs"] if v["name"] == o)["base_shape"]
                ib = next(v for v in meta["inputs"] if v["name"] == i)["base_shape"]
                block = torch.zeros([BATCH, *ob, *ib], dtype=torch.float64)
            tensors[f"J/{o}/{i}"] = _raw(block)
        requested = {i for _, i in meta["derivatives"]}
        tangents = {
            k: torch.randn(v.shape, generator=gen, dtype=torch.float64)
            for k, v in raw.items()
            if k in requested
        }
        tensors |= {f"tan/{k}": v for k, v in tangents.items()}
        # the compiled jvp of `o` sums over its compiled pairs only (taylor compiles no
        # d elastic_strain / d orientation~1): eager's jvp with just those tangents
        for o in dict.fromkeys(o for o, _ in meta["derivatives"]):
            ins = {i for oo, i in meta["derivatives"] if oo == o}
            own = _typed(model, meta, {i: t for i, t in tangents.items() if i in ins})
            tensors[f"jvp/{o}"] = _raw(model.jvp(inputs, own)[1][o])
    if meta["parameter_derivatives"]:
        names = {p: _eager_param(model, p) for _, p in meta["parameter_derivatives"]}
        _, PJ = model.param_jacobian(inputs, sorted(set(names.values())))
        for o, p in meta["parameter_derivatives"]:
            tensors[f"PJ/{o}/{p}"] = _raw(PJ[o][names[p]])
    _write(out / f"{scenario}.ref", tensors)
    return True


def main(argv: list[str]) -> int:
    artifacts, scenarios, out = (Path(a) for a in argv[1:4])
    out.mkdir(parents=True, exist_ok=True)
    for scenario in ("elasticity", "scalar_implicit", "chaboche", "taylor", "sub_batch"):
        done = references(artifacts, scenarios, out, scenario)
        print(f"{scenario}: {'written' if done else 'no artifact, skipped'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
