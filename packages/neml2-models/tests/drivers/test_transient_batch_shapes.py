"""Per-step batch shapes of a TransientDriver history (batch of 20), as NEML2 v3 stores them.

Rule (established with the NEML2 v3.1.0 package by running ``inputs/j2_batch_shapes.i`` and the
variants below through ``load_input(...).get_driver("driver")``, ``run()``, ``result()`` and
reading every key's shape): the driver records each value with the shape it was computed with.
An ``ImplicitUpdate`` whose solve converges at Newton iteration 0 returns its guess unchanged, so
its unknowns keep the broadcast batch of the guesses (here the unbatched old state); once a Newton
step is taken they carry the full batch (guesses and givens). Initial conditions are stored with
their own shape (``output.0.<x>``) and chained into ``input.1.<x>~1``; forces keep theirs (an
unbatched time stays ``()``). In ``j2_batch_shapes.i`` every amplitude is elastic at steps 1-2 and
some yield at step 3: v3 stores ``plastic_strain`` as ``(6,)`` and ``flow_rate`` /
``equivalent_plastic_strain`` as ``()`` at outputs 1-2 and old-state inputs 2-3 (1-3 with
unbatched ICs), ``(20, 6)`` / ``(20,)`` after.

Values are checked against the same history with the old equivalent plastic strain initialized
batched (``(20,)`` zeros), which makes every solve batched: the recorded values, broadcast, must
equal it. Same arithmetic on equal operands: observed bitwise equal; the 1e-12 tolerance only
allows for reduction-order differences.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_string

INPUT = Path(__file__).parent / "inputs" / "j2_batch_shapes.i"
B = 20
# base shape of each unknown of the ImplicitUpdate (internal state)
UNKNOWNS = {"plastic_strain": (6,), "flow_rate": (), "equivalent_plastic_strain": ()}
GIVENS = {"strain": (B, 6), "stress": (B, 6), "t": (B,)}
FIRST_YIELD = 3  # first step whose solve takes a Newton step (v3.1.0: first batched output)
DRV = "    prescribed_SR2_values = 'strains'\n"


def _with_tensor(text: str, name: str, expr: str) -> str:
    block = f"[Tensors]\n  [{name}]\n    type = Python\n    expr = '{expr}'\n  []\n"
    return text.replace("[Tensors]\n", block, 1)


def _ic_unbatched(text: str) -> str:
    text = text.replace(
        DRV,
        DRV + "    ic_Scalar_names = 'equivalent_plastic_strain flow_rate'\n"
        "    ic_Scalar_values = '0 0'\n    ic_SR2_names = 'plastic_strain'\n"
        "    ic_SR2_values = 'pe0'\n",
    )
    return _with_tensor(text, "pe0", "SR2(torch.zeros(6, dtype=torch.float64))")


def _ic_batched(text: str) -> str:
    text = text.replace(
        DRV,
        DRV + "    ic_Scalar_names = 'equivalent_plastic_strain'\n    ic_Scalar_values = 'ep0'\n",
    )
    return _with_tensor(text, "ep0", f"Scalar(torch.zeros({B}, dtype=torch.float64))")


def _time_unbatched(text: str) -> str:
    out = (
        text.replace("[:, None].expand(-1, 20).clone()", "")
        .replace("t.shape + (6,)", f"t.shape + ({B}, 6)")
        .replace("torch.sin(2 * math.pi * t)\n", "torch.sin(2 * math.pi * t)[:, None]\n")
    )
    assert out != text
    return out


def _run(text: str) -> dict[str, torch.Tensor]:
    driver = narrow(load_string(text).get_driver("driver"), TransientDriver)
    driver.run()
    return {k: v.detach() for k, v in driver.result().items()}


def _expected_shape(key: str, ics: bool, time_batched: bool) -> tuple[int, ...]:
    prefix, step, name = key.split(".", 2)
    k = int(step)
    var = name.split("~")[0]
    if var in UNKNOWNS:
        # the step whose solve produced it (an old-state input comes from the previous step)
        solved = k if prefix == "output" else k - 1
        if solved == 0:
            assert ics, key
        return UNKNOWNS[var] if solved < FIRST_YIELD else (B, *UNKNOWNS[var])
    if var == "t" and not time_batched:
        return ()
    return GIVENS[var]


@pytest.mark.parametrize(
    ("ics", "time_batched"),
    [(False, True), (True, True), (False, False)],
    ids=["base", "ic-unbatched", "time-unbatched"],
)
def test_history_shapes_follow_v3(ics: bool, time_batched: bool) -> None:
    text = INPUT.read_text()
    if not time_batched:
        text = _time_unbatched(text)
    ref = _run(_ic_batched(text))  # the zero ICs of "ic-unbatched" change no value
    res = _run(_ic_unbatched(text) if ics else text)
    # the rule's yield step, from the batched values: the first step with a non-zero flow rate
    yielded = [k for k in range(1, 21) if bool((ref[f"output.{k}.flow_rate"] > 0).any())]
    assert yielded[0] == FIRST_YIELD
    n = 21
    keys = {f"input.{k}.strain" for k in range(n)} | {f"input.{k}.t" for k in range(n)}
    keys |= {f"input.{k}.t~1" for k in range(1, n)}
    keys |= {f"output.{k}.{v}" for k in range(1, n) for v in (*UNKNOWNS, "stress")}
    first_old = 1 if ics else 2
    keys |= {f"input.{k}.{v}~1" for k in range(first_old, n) for v in UNKNOWNS}
    if ics:
        keys |= {f"output.0.{v}" for v in UNKNOWNS}
    assert set(res) == keys
    for key, value in res.items():
        assert tuple(value.shape) == _expected_shape(key, ics, time_batched), key
        want = ref.get(key)
        if want is None:  # an unbatched IC the batched-IC run does not have
            assert key in {"output.0.flow_rate", "output.0.plastic_strain", "input.1.flow_rate~1",
                           "input.1.plastic_strain~1"}, key  # fmt: skip
            assert not bool(value.any())
            continue
        diff = float((value.expand_as(want) - want).abs().max())
        assert diff <= 1e-12 * (1.0 + float(want.abs().max())), (key, diff)
