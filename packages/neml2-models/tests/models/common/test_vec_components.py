"""VecComponents: three Scalars (v0, v1, v2) named by option 'to'."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(15)


def _hit(to: str) -> str:
    return f"""
[Models]
  [model]
    type = VecComponents
    from = 'v'
    to = '{to}'
  []
[]
"""


CASES = [
    ModelCase(
        "components",
        _hit("vx vy vz"),
        {"v": RNG.normal(size=(4, 3))},
        lambda x: {"vx": x["v"][:, 0], "vy": x["v"][:, 1], "vz": x["v"][:, 2]},
    )
]


CHAIN = """
[Models]
  [split_vec]
    type = VecComponents
    from = 'v'
    to = 'vx vy vz'
  []
  [split_x]
    type = MacaulaySplit
    from = 'vx'
    to_positive = 'p'
    to_negative = 'n'
  []
  [ratchet]
    type = IrreversibleScalar
    from = 'vy'
    to = 'ymax'
  []
  [model]
    type = ComposedModel
    models = 'split_vec split_x ratchet'
    additional_outputs = 'vz'
  []
[]
"""
CASES.append(
    ModelCase(
        "composed-with-split-and-ratchet",
        CHAIN,
        {
            "v": np.array([[0.5, 1.0, -2.0], [-0.7, -0.2, 0.3], [1.5, 0.4, 0.9]]),
            "ymax~1": np.array([0.2, 0.6, 1.1]),
        },
        lambda x: {
            "p": np.maximum(x["v"][:, 0], 0.0),
            "n": np.minimum(x["v"][:, 0], 0.0),
            "ymax": np.maximum(x["v"][:, 1], x["ymax~1"]),
            "vz": x["v"][:, 2],
        },
    )
)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vec_components(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_output_order() -> None:
    from neml2.factory import load_string

    m = load_string(_hit("c b a")).get_model("model")
    assert list(m.output_spec) == ["c", "b", "a"]


@pytest.mark.parametrize(
    ("to", "pattern"),
    [
        ("a b", r"expected 3 variable names, got 2"),
        ("a b a", r"duplicate variable names"),
        ("a v b", r"'v' is also the input"),
    ],
)
def test_bad_to(to: str, pattern: str) -> None:
    from neml2.factory import load_string

    f = load_string(_hit(to))
    with pytest.raises(ValueError, match=r"\[Models/model\].*'to'.*" + pattern):
        f.get_model("model")


def test_to_is_required() -> None:
    from neml2.factory import load_string

    f = load_string("[Models]\n  [model]\n    type = VecComponents\n    from = 'v'\n  []\n[]\n")
    with pytest.raises(ValueError, match=r"\[Models/model\].*'to'"):
        f.get_model("model")
