"""Copy<T>: to = from, for every tensor type."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(10)
BASES = {
    "Scalar": (), "Vec": (3,), "MRP": (3,), "WR2": (3,), "R2": (3, 3), "SR2": (6,),
    "SSR4": (6, 6), "MillerIndex": (3,),
}  # fmt: skip


def _case(t: str) -> ModelCase:
    hit = f"[Models]\n  [model]\n    type = Copy{t}\n    from = 'a'\n    to = 'b'\n  []\n[]\n"
    return ModelCase(t, hit, {"a": RNG.normal(size=(3, *BASES[t]))}, lambda x: {"b": x["a"]})


CASES = [_case(t) for t in BASES]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_copy_variable(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_same_name_rejected_by_required_option() -> None:
    from neml2.factory import load_string

    f = load_string("[Models]\n  [model]\n    type = CopySR2\n    from = 'a b'\n  []\n[]\n")
    with pytest.raises(ValueError, match=r"\[Models/model\].*'from'.*one variable name"):
        f.get_model("model")
