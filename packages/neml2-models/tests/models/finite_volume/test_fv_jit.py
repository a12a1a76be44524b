"""py-jit (``neml2.compile``) of finite-volume models equals py-eager (float64, 1e-12): the
advection-diffusion example's rate ``du/dt = -div(v u - D du/dx)`` (boundary cells, interpolation,
upwind flux, gradients) and a composed source model (coordinate transform, smeared and dumped
sources)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import neml2
from neml2.tensors import Scalar

ROOT = Path(__file__).resolve().parents[5]
EXAMPLE = ROOT / "examples" / "finite_volume" / "advection_diffusion.i"
F64 = torch.float64

SOURCES = """
[Models]
  [x_hat]
    type = SemiInfiniteCoordinateTransform
    coordinate = 'radius'
    shift = 's'
  []
  [smeared]
    type = SmearedDeltaSource
    magnitude = 'rate'
    location = 'state/x_hat'
    width = 0.1
    cell_centers = '0.05 0.15 0.25 0.35 0.45 0.55 0.65 0.75'
  []
  [dumped]
    type = DumpInSmallestBin
    magnitude = 'rate'
    cell_centers = '0.05 0.15 0.25 0.35 0.45 0.55 0.65 0.75'
  []
  [total]
    type = ScalarLinearCombination
    from = 'state/smeared_source state/dumped_source'
    weights = '0.7 0.3'
    to = 'source'
  []
  [model]
    type = ComposedModel
    models = 'x_hat smeared dumped total'
  []
[]
"""


def _same(a: Any, b: Any, what: str) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), what
        for k in a:
            _same(a[k], b[k], f"{what}[{k}]")
        return
    x, y = getattr(a, "data", a), getattr(b, "data", b)
    torch.testing.assert_close(y, x, rtol=1e-12, atol=1e-14, msg=f"{what}: mismatch")


def _check(eager: Any, jit: Any, inputs: dict[str, Any]) -> None:
    _same(eager.value(inputs), jit.value(inputs), "value")
    _same(eager.jacobian(inputs)[1], jit.jacobian(inputs)[1], "jacobian")
    assert jit.forward is not type(jit).forward.__get__(jit)


def test_advection_diffusion_rate_compiled(dtype: torch.dtype) -> None:
    if dtype != F64:
        pytest.skip("py-jit route checked in float64")
    eager, jit = (neml2.load_model(EXAMPLE, "rate", dtype=F64) for _ in "ab")
    jit = neml2.compile(jit)
    rng = np.random.default_rng(3)
    u1 = torch.tensor(rng.random((3, 20)), dtype=F64)
    inputs = {"u": Scalar(u1, sub_batch_ndim=1)}
    assert set(inputs) == set(eager.input_spec)
    _check(eager, jit, inputs)


def test_sources_compiled(dtype: torch.dtype) -> None:
    if dtype != F64:
        pytest.skip("py-jit route checked in float64")
    eager, jit = (neml2.load_string(SOURCES, dtype=F64).get_model("model") for _ in "ab")
    jit = neml2.compile(jit)
    rng = np.random.default_rng(4)
    inputs = {
        "radius": Scalar(torch.tensor(rng.random(5) * 2, dtype=F64)),
        "s": Scalar(torch.tensor([1.5], dtype=F64)),
        "rate": Scalar(torch.tensor(rng.random(5) + 0.5, dtype=F64)),
    }
    assert set(inputs) == set(eager.input_spec)
    _check(eager, jit, inputs)
