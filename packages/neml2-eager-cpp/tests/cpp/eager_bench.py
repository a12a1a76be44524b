"""py-eager side of ``bench_eager``: per-call time of the same model evaluated from Python.

``py_eager(args)`` times ``model.call_by_name`` (typed inputs, ``torch.no_grad``) and
``bridge(args)`` times ``neml2.eager._bridge.EagerModel.forward`` (raw tensors, the canonical
checks included). ``args`` holds the inputs plus ``__calls__`` and ``__scenario__`` (an index
into ``SCENARIOS``); the result is ``{"seconds": per-call seconds}`` (best of 5 rounds).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import torch

import neml2
from neml2.eager._bridge import EagerModel

SCENARIOS = ("elasticity", "scalar_implicit")
#: the shared scenario inputs (``scenarios/``: set NEML2_SCENARIOS, as ctest does)
_SCENARIO_DIR = Path(os.environ["NEML2_SCENARIOS"])


def _split(args: dict[str, torch.Tensor]) -> tuple[Path, int, dict[str, torch.Tensor]]:
    calls = int(args["__calls__"].item())
    path = _SCENARIO_DIR / f"{SCENARIOS[int(args['__scenario__'].item())]}.i"
    return path, calls, {k: v for k, v in args.items() if not k.startswith("__")}


def _best(fn: Callable[[], object], calls: int) -> dict[str, torch.Tensor]:
    fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return {"seconds": torch.tensor(best, dtype=torch.float64)}


def py_eager(args: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    path, calls, x = _split(args)
    model = neml2.load_model(path, "model")
    typed = {n: cls(x[n]) for n, cls in model.input_spec.items()}

    def run() -> object:
        with torch.no_grad():
            return model.call_by_name(typed)

    return _best(run, calls)


def bridge(args: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    path, calls, x = _split(args)
    model = EagerModel(str(path), "model")
    return _best(lambda: model.forward(x), calls)
