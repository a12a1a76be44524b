"""EffectiveVolume against numpy: V = M / (1 - phi_o) * sum_i w_i / rho_i."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(11)


def _hit(opts: str) -> str:
    return f"[Models]\n  [model]\n    type = EffectiveVolume\n{opts}  []\n[]\n"


def _volume(x: dict[str, np.ndarray], m: np.ndarray | float, rho: tuple[float, ...],
            names: tuple[str, ...], phi: str | None) -> dict[str, Any]:  # fmt: skip
    s = sum(x[n] / r for n, r in zip(names, rho, strict=True))
    v = m * s if phi is None else m * s / (1.0 - x[phi])
    return {"composite_volume": v}


THREE = "    densities = '1.5 3.0 2.2'\n    mass_fractions = 'w1 w2 w3'\n"
W = {"w1": RNG.uniform(0, 1, 7), "w2": RNG.uniform(0, 1, (1,)), "w3": 0.25}
CASES = [
    ModelCase("chem-effective-volume", _hit(f"    reference_mass = 2.5\n{THREE}"
              "    open_volume_fraction = phio\n"), {**W, "phio": RNG.uniform(0, 0.6, 7)},
              lambda x: _volume(x, 2.5, (1.5, 3.0, 2.2), ("w1", "w2", "w3"), "phio")),
    ModelCase("chem-effective-volume-dense", _hit(f"    reference_mass = 2.5\n{THREE}"), W,
              lambda x: _volume(x, 2.5, (1.5, 3.0, 2.2), ("w1", "w2", "w3"), None)),
    ModelCase("chem-effective-volume-promoted",
              _hit("    reference_mass = M\n    densities = '0.8 4'\n    mass_fractions = 'a b'\n"
                   "    open_volume_fraction = p\n"),
              {"a": RNG.uniform(0, 1, 7), "b": RNG.uniform(0, 1, 7), "p": [0.3],
               "M": RNG.uniform(0.5, 3, 7)},
              lambda x: _volume(x, x["M"], (0.8, 4.0), ("a", "b"), "p")),
    ModelCase("chem-effective-volume-promoted-dense",
              _hit("    reference_mass = M\n    densities = '0.8'\n    mass_fractions = 'a'\n"),
              {"a": RNG.uniform(0, 1, 7), "M": RNG.uniform(0.5, 3, 7)},
              lambda x: _volume(x, x["M"], (0.8,), ("a",), None)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_chem_effective_volume(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_names_and_storage() -> None:
    m = load_string(_hit(f"    reference_mass = 2.5\n{THREE}    open_volume_fraction = phio\n"))
    model = m.get_model("model")
    assert list(model.input_spec) == ["phio", "w1", "w2", "w3"]
    names = [n for n, _ in model.named_parameters()]
    assert names == ["M", "_rho_names_0", "_rho_names_1", "_rho_names_2"]


@pytest.mark.parametrize(
    ("opts", "pattern"),
    [
        ("    reference_mass = 1\n    densities = '1 2'\n    mass_fractions = 'a'\n",
         r"'densities'.*expected 1 entries.*got 2"),
        ("    reference_mass = 1\n    densities = '1'\n    mass_fractions = 'a b'\n",
         r"'densities'.*expected 2 entries.*got 1"),
        ("    reference_mass = 1\n    densities = '0 2'\n    mass_fractions = 'a b'\n",
         r"'densities'.*value 0 must be positive"),
        ("    reference_mass = 1\n    densities = '1 -2'\n    mass_fractions = 'a b'\n",
         r"'densities'.*value 1 must be positive"),
        ("    reference_mass = -1\n    densities = '1 2'\n    mass_fractions = 'a b'\n",
         r"'reference_mass'.*non-negative"),
        ("    reference_mass = 1\n    densities = '1 2'\n    mass_fractions = 'a a'\n",
         r"'mass_fractions'.*duplicate"),
        ("    reference_mass = 1\n    densities = '1 2'\n    mass_fractions = 'a b'\n"
         "    open_volume_fraction = b\n", r"'open_volume_fraction'.*also a mass fraction"),
        ("    reference_mass = 1\n    densities = ''\n    mass_fractions = ''\n",
         r"'mass_fractions'.*at least one"),
    ],
)  # fmt: skip
def test_bad_inputs(opts: str, pattern: str) -> None:
    f = load_string(_hit(opts))
    with pytest.raises(ValueError, match=rf"\[Models/model\].*{pattern}"):
        f.get_model("model")
