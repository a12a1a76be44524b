"""The binding releases the GIL: Python threads with their own Model run concurrently."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch

from neml2.aoti import Model
from runtime._scenarios import relax_for_float32


@pytest.fixture
def long_switch_interval() -> Iterator[None]:
    """Threads switch only when one blocks or releases the GIL (no time slicing)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@pytest.mark.usefixtures("long_switch_interval")
def test_forward_releases_the_gil(
    artifact: Callable[[str], Path],
    scenario_inputs: Callable[[Model, int], dict[str, torch.Tensor]],
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    """With time slicing off, the main thread runs Python only if the call drops the GIL.

    The worker signals ``started`` and enters ``forward`` without yielding; the waiting main
    thread can only look at ``done`` while the worker is inside the call if the binding released
    the GIL there (otherwise it first runs after the worker finished).
    """
    model = relax_for_float32(Model(artifact("chaboche"), device, dtype))
    x = scenario_inputs(model, 1000)
    started, done, seen_during_call = threading.Event(), threading.Event(), []

    def work() -> None:
        started.set()
        model.forward(x)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    seen_during_call.append(not done.is_set())
    t.join()
    assert seen_during_call == [True]


def test_threads_with_own_models_match_serial(
    artifact: Callable[[str], Path],
    scenario_inputs: Callable[[Model, int], dict[str, torch.Tensor]],
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    nthreads = 4
    models = [
        relax_for_float32(Model(artifact("chaboche"), device, dtype)) for _ in range(nthreads)
    ]
    inputs = [scenario_inputs(models[0], 64 + 7 * k) for k in range(nthreads)]
    serial = [m.jacobian(x) for m, x in zip(models, inputs, strict=True)]
    results: list[object] = [None] * nthreads
    barrier = threading.Barrier(nthreads)

    def work(k: int) -> None:
        barrier.wait()
        results[k] = models[k].jacobian(inputs[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (values, J), res in zip(serial, results, strict=True):
        assert isinstance(res, tuple)
        got_values, got_J = res
        assert got_values.keys() == values.keys()
        for n in values:
            assert torch.equal(got_values[n], values[n])
        for o in J:
            for i in J[o]:
                assert torch.equal(got_J[o][i], J[o][i])


def test_threads_sharing_one_model_match_serial(
    artifact: Callable[[str], Path],
    scenario_inputs: Callable[[Model, int], dict[str, torch.Tensor]],
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    """Calls on one Model are serialized inside the runtime: safe, results as if serial."""
    model = Model(artifact("elasticity"), device, dtype)
    inputs = [scenario_inputs(model, 10 + k) for k in range(4)]
    serial = [model.forward(x)["stress"] for x in inputs]
    results: list[torch.Tensor | None] = [None] * len(inputs)

    def work(k: int) -> None:
        for _ in range(20):
            results[k] = model.forward(inputs[k])["stress"]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, ref in zip(results, serial, strict=True):
        assert got is not None and torch.equal(got, ref)


@pytest.mark.parametrize("round_", range(3))
def test_chaboche_shared_by_8_threads_with_mixed_batches(
    artifact: Callable[[str], Path],
    scenario_inputs: Callable[[Model, int], dict[str, torch.Tensor]],
    device: torch.device,
    dtype: torch.dtype,
    round_: int,
) -> None:
    """One compiled Chaboche model called from 8 threads at once, batch sizes from 1 to 1000
    (lane groups of every width, scalar tails, one element): forward and jacobian are bit for
    bit the serial results, three rounds in a row (``nox -s native`` repeats this per SIMD path).
    """
    model = relax_for_float32(Model(artifact("chaboche"), device, dtype))
    batches = [1, 3, 4, 17, 64, 250, 999, 1000]
    inputs = [scenario_inputs(model, b) for b in batches]
    serial = [(model.forward(x), model.jacobian(x)) for x in inputs]
    results: list[object] = [None] * len(batches)
    barrier = threading.Barrier(len(batches))

    def work(k: int) -> None:
        barrier.wait()
        results[k] = (model.forward(inputs[k]), model.jacobian(inputs[k]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for b, (forward, (values, J)), res in zip(batches, serial, results, strict=True):
        assert isinstance(res, tuple), f"batch {b}: the thread did not finish"
        got_forward, (got_values, got_J) = res
        for n in forward:
            assert torch.equal(got_forward[n], forward[n]), (b, n)
        for n in values:
            assert torch.equal(got_values[n], values[n]), (b, n)
        for o in J:
            for i in J[o]:
                assert torch.equal(got_J[o][i], J[o][i]), (b, o, i)
