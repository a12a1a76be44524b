"""ComposedModel + DependencyResolver: order, boundary variables, priorities, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import neml2
from neml2.models.testing import ModelCase, case_id, check_model
from neml2.tensors import Scalar

RNG = np.random.default_rng(3)

CHAIN = """
[Models]
  [rate]
    type = ScalarVariableRate
    variable = 'a'
  []
  [combo]
    type = ScalarLinearCombination
    from = 'a_rate b'
    to = 'c'
    weights = '2 k'
    offset = 'kp'
  []
  [kp]
    type = ScalarConstantParameter
    value = 0.25
  []
  [sr2]
    type = SR2LinearCombination
    from = 'e f'
    to = 's'
    weights = 'c'
  []
  [model]
    type = ComposedModel
    models = 'sr2 combo rate'
    additional_outputs = 'a_rate'
  []
[]
"""


def _chain(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    ar = (x["a"] - x["a~1"]) / (x["t"] - x["t~1"])
    c = 2 * ar + x["k"] * x["b"] + 0.25
    return {"s": c[:, None] * (x["e"] + x["f"]), "a_rate": ar}


CASES = [
    ModelCase(
        "chain",
        CHAIN,
        {
            "a": RNG.normal(size=3),
            "a~1": RNG.normal(size=3),
            "t": 1 + RNG.random(3),
            "t~1": RNG.random(3),
            "b": RNG.normal(size=3),
            "k": RNG.normal(size=3),
            "e": RNG.normal(size=(3, 6)),
            "f": RNG.normal(size=(3, 6)),
        },
        _chain,
        second_order=False,
    ),
]


SECOND = """
[Models]
  [x]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 'w'
  []
  [cp]
    type = ScalarLinearCombination
    from = 'b'
    to = 'bb'
  []
  [y]
    type = ScalarLinearCombination
    from = 'b c'
    to = 'd'
    weights = 'bb 1'
  []
  [s]
    type = SR2LinearCombination
    from = 'e'
    to = 'f'
    weights = 'd'
  []
  [model]
    type = ComposedModel
    models = 's y x cp'
  []
[]
"""

CASES.append(
    ModelCase(
        "second-order",
        SECOND,
        {
            "a": RNG.normal(size=2),
            "w": RNG.normal(size=2),
            "c": RNG.normal(size=2),
            "e": RNG.normal(size=(2, 6)),
        },
        lambda x: {"f": ((x["w"] * x["a"]) ** 2 + x["c"])[:, None] * x["e"]},
    )
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_composed_cases(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_chain_structure() -> None:
    m = neml2.load_string(CHAIN).get_model("model")
    # mode-3 provider 'kp' was pulled in automatically; children registered by HIT name
    assert [type(c).__name__ for c in m.order] == [
        "ScalarVariableRate",
        "ScalarConstantParameter",
        "ScalarLinearCombination",
        "SR2LinearCombination",
    ]
    assert set(dict(m.named_children())) == {"sr2", "combo", "rate", "kp"}
    assert list(m.input_spec) == ["a", "a~1", "t", "t~1", "b", "k", "e", "f"]
    assert list(m.output_spec) == ["s", "a_rate"]
    vals = [2.0, 1.0, 0.5, 0.0, 3.0, 4.0]  # a a~1 t t~1 b k
    args = [Scalar(torch.tensor(x, dtype=torch.float64)) for x in vals]
    res = m(*args, torch.ones(6, dtype=torch.float64), torch.ones(6, dtype=torch.float64))
    assert isinstance(res, tuple) and len(res) == 2
    c = 2 * (2.0 - 1.0) / 0.5 + 4.0 * 3.0 + 0.25
    torch.testing.assert_close(res[0].data, torch.full((6,), 2 * c, dtype=torch.float64))


TWO = """
[Models]
  [x]
    type = ScalarLinearCombination
    from = 'a'
    to = 'b'
    weights = 2
  []
  [y]
    type = ScalarLinearCombination
    from = 'b c'
    to = 'd'
  []
  [model]
    type = ComposedModel
    models = 'y x'
    additional_outputs = 'b nonexistent'
  []
[]
"""


def test_additional_outputs_and_order() -> None:
    m = neml2.load_string(TWO).get_model("model")
    assert list(m.input_spec) == ["a", "c"]
    assert list(m.output_spec) == ["d", "b"]
    d, b = m(
        Scalar(torch.tensor(1.0, dtype=torch.float64)),
        Scalar(torch.tensor(3.0, dtype=torch.float64)),
    )
    assert d.data.item() == 5.0 and b.data.item() == 2.0


def _lc(name: str, src: str, dst: str, w: float) -> str:
    return f"[{name}]\n type = ScalarLinearCombination\n from = '{src}'\n to = '{dst}'\n weights = {w}\n[]\n"


def test_duplicate_provider_message() -> None:
    text = "[Models]\n" + _lc("p", "a", "c", 1) + _lc("q", "b", "c", 2)
    text += "[model]\n type = ComposedModel\n models = 'p q'\n[]\n[]\n"
    with pytest.raises(ValueError) as err:
        neml2.load_string(text).get_model("model")
    msg = str(err.value)
    assert "[Models/model]" in msg and "<string>" in msg
    assert (
        "Variable 'c' is provided by more than one model at the same default level: "
        "ScalarLinearCombination, ScalarLinearCombination. At most one provider per "
        "(name, priority) is allowed."
    ) in msg


def test_cycle_message() -> None:
    text = "[Models]\n" + _lc("p", "a", "b", 1) + _lc("q", "b", "a", 2)
    text += "[model]\n type = ComposedModel\n models = 'p q'\n[]\n[]\n"
    with pytest.raises(
        ValueError,
        match=r"\[Models/model\].*Circular dependency detected among "
        r"models: ScalarLinearCombination, ScalarLinearCombination",
    ):
        neml2.load_string(text).get_model("model")


def test_priorities_last_writer_wins() -> None:
    from neml2.models.composed import ComposedModel
    from neml2.models.model import Model
    from neml2.schema import HitSchema, input, output

    class Hi(Model):
        hit = HitSchema(
            input("from", Scalar, "x", attr="x_"), output("to", Scalar, "y", priority="high")
        )

        def forward(self, x: Scalar, v: object = None) -> Scalar:
            return x * 10.0

    lo = neml2.load_string("[Models]\n" + _lc("lo", "a", "c", 1) + "[]\n").get_model("lo")
    lo.output_priorities = {"c": "low"}
    hi = Hi(**{"from": "c", "to": "c"})
    m = ComposedModel(models=[hi, lo])
    assert [type(c).__name__ for c in m.order] == ["ScalarLinearCombination", "Hi"]
    assert list(m.input_spec) == ["a"] and list(m.output_spec) == ["c"]
    (c,) = m(Scalar(torch.tensor(2.0, dtype=torch.float64)))
    assert c.data.item() == 20.0
    hi2 = Hi(**{"from": "z", "to": "c"})
    with pytest.raises(ValueError, match="at the same priority='high' level: Hi, Hi"):
        ComposedModel(models=[hi, hi2])


def test_second_order_flag_and_error() -> None:
    m = neml2.load_string(TWO).get_model("model")
    assert m.SUPPORTS_SECOND_ORDER
    rate = neml2.load_string(
        "[Models]\n[r]\n type = ScalarVariableRate\n variable = a\n[]\n"
        + _lc("l", "a_rate", "z", 1)
        + "[model]\n type = ComposedModel\n models = 'r l'\n[]\n[]\n"
    ).get_model("model")
    assert not rate.SUPPORTS_SECOND_ORDER
    x = [Scalar(torch.tensor(1.0 + i, dtype=torch.float64)) for i in range(4)]
    v = {
        "a": {
            "a": Scalar._wrap(torch.ones(1, dtype=torch.float64), 0, (), (), 1, ("full",), (None,))
        }
    }
    with pytest.raises(RuntimeError, match="second-order"):
        rate(*x, v=v, v2={})
