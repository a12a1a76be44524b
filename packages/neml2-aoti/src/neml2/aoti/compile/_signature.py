r"""What a graph file says about itself, so the runtime can check it against ``metadata.json``
(ARTIFACT.md §2 ``leaves[].sha1``, §3 "Graph signature").

* :func:`graph_signature`: the dtype, device type and shape of every user input and output of an
  exported program, the batch axis (any symbolic size) written as ``-1``, and, for a batch
  axis exported as a multiple ``m k`` of its symbol, the rows it takes (:func:`batch_rows`).
  Embedded in the ``.pt2`` package's own metadata under :data:`SIGNATURE_KEY`.
* :func:`file_sha1`: the content hash recorded for each graph file of a leaf.
* :func:`cpu_features`: the instruction-set extensions of the compiling CPU that Inductor's
  ``-march=native`` lets the compiler use; recorded per leaf, a CPU without one of them must not
  run the leaf's code (it would stop with an illegal instruction).
"""

from __future__ import annotations

import hashlib
import json
import platform
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

__all__ = [
    "ISA_FLAGS",
    "SIGNATURE_KEY",
    "batch_rows",
    "cpu_features",
    "file_sha1",
    "graph_signature",
    "leaf_digests",
    "signature_config",
]

#: The key of the signature in the package metadata (``AOTIModelPackageLoader::get_metadata``).
SIGNATURE_KEY = "neml2_signature"

#: Inductor's option whose string map is stored in the package metadata.
_METADATA_CONFIG = "aot_inductor.metadata"

_CHUNK = 1 << 20

# fmt: off
#: x86-64 instruction-set extensions, as ``/proc/cpuinfo`` names them, that ``-march=native`` makes
#: available to generated code. Other flags (``hypervisor``, ``constant_tsc`` ...) differ between
#: machines that run the same code and are not recorded.
ISA_FLAGS = frozenset({
    "sse3", "pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "abm", "movbe", "aes", "pclmulqdq",
    "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "adx", "rdrand", "rdseed", "sha_ni", "gfni",
    "vaes", "vpclmulqdq", "avx_vnni", "avx_vnni_int8", "avx_ifma", "avx_ne_convert",
    "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512ifma", "avx512vbmi",
    "avx512_vbmi2", "avx512_vnni", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16",
    "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8",
})
# fmt: on


def _tensor_spec(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{what} is {type(value).__name__}, not a tensor")
    shape = [d if isinstance(d, int) else -1 for d in value.shape]
    return {
        "dtype": str(value.dtype).removeprefix("torch."),
        "device": value.device.type,
        "shape": shape,
    }


def _user_input_nodes(program: torch.export.ExportedProgram) -> list[Any]:
    user = set(program.graph_signature.user_inputs)
    return [node for node in program.graph.nodes if node.op == "placeholder" and node.name in user]


def batch_rows(program: torch.export.ExportedProgram) -> dict[str, int] | None:
    """``{"multiple": m, "min": lo}`` when the program's batch axis (axis 0 of its first
    user input with a symbolic one) is ``m k`` for an integer ``m > 1``: it takes only batches
    that are multiples of ``m`` and at least ``lo`` (``m`` times the least ``k`` of the program's
    range constraints); ``None`` for a plain symbolic, a static or no batch axis."""
    for node in _user_input_nodes(program):
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor) or val.dim() == 0:
            continue
        size = val.shape[0]
        if isinstance(size, int):
            continue
        coeff, symbol = size.node.expr.as_coeff_Mul()  # sympy: m * k -> (m, k)
        if not symbol.is_Symbol or not coeff.is_Integer or int(coeff) <= 1:
            return None
        ranges = program.range_constraints.get(symbol)
        least = int(ranges.lower) if ranges is not None else 1
        return {"multiple": int(coeff), "min": int(coeff) * max(1, least)}
    return None


def graph_signature(program: torch.export.ExportedProgram) -> dict[str, Any]:
    """``{"inputs": [spec], "outputs": [spec]}`` of the program's user inputs and outputs, each
    ``spec`` = ``{"dtype", "device", "shape"}`` (a symbolic size is ``-1``), plus
    ``"batch_rows"`` (:func:`batch_rows`) when the batch axis takes only multiples of a size."""
    inputs = [
        _tensor_spec(node.meta.get("val"), f"input '{node.name}'")
        for node in _user_input_nodes(program)
    ]
    out = next(node for node in program.graph.nodes if node.op == "output")
    outputs = [
        _tensor_spec(arg.meta.get("val"), f"output {k}") for k, arg in enumerate(out.args[0])
    ]
    signature: dict[str, Any] = {"inputs": inputs, "outputs": outputs}
    rows = batch_rows(program)
    if rows is not None:
        signature["batch_rows"] = rows
    return signature


def signature_config(program: torch.export.ExportedProgram) -> dict[str, Any]:
    """The Inductor option that embeds :func:`graph_signature` in the package."""
    return {_METADATA_CONFIG: {SIGNATURE_KEY: json.dumps(graph_signature(program))}}


def file_sha1(path: Path) -> str:
    """Hex SHA-1 of the file's bytes (the runtime computes the same with ``c10::sha1``)."""
    h = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def leaf_digests(files: Iterable[Path]) -> dict[str, str]:
    """``{file name: sha1}`` of a leaf's graph files, sorted by name."""
    return {p.name: file_sha1(p) for p in sorted(files, key=lambda p: p.name)}


def cpu_features(cpuinfo: str | None = None) -> list[str]:
    """The :data:`ISA_FLAGS` of this CPU (sorted) when Inductor compiles for it
    (``-march=native``, the default on x86-64 Linux); ``[]`` for an explicit
    ``TORCHINDUCTOR_CPP_MARCH``, another architecture or an unreadable ``/proc/cpuinfo``.
    ``cpuinfo``: the text to read instead of ``/proc/cpuinfo``."""
    from torch._inductor import config

    march = getattr(config.cpp, "march", None)  # an option since torch 2.12
    if platform.machine().lower() not in ("x86_64", "amd64") or march is not None:
        return []
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return []
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return sorted(ISA_FLAGS.intersection(value.split()))
    return []
