"""The benchmark's FCC Taylor model (``scenarios/taylor.i``, crystal plasticity) on py-aoti:
forward values and the implicit-function Jacobian blocks equal py-eager's to 1e-10 relative
(float64; Newton stops at 1e-8 relative on both routes, from the same iterates, so they agree
to rounding), one step from the virgin state of randomly oriented grains."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

import neml2
from neml2.aoti import Model
from neml2.tensors import MRP


@pytest.fixture
def routes(
    artifact: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    device: torch.device,
    dtype: torch.dtype,
) -> tuple[Model, Any]:
    if dtype != torch.float64:
        pytest.skip("the taylor scenario is compiled in float64 only")
    eager = neml2.load_model(scenario_file("taylor"), "model", device=device, dtype=dtype)
    return Model(artifact("taylor"), device, dtype), eager


def grains(batch: int, device: torch.device) -> dict[str, torch.Tensor]:
    """Random orientations, a tension-type deformation rate with spin, dt = 1, virgin state."""
    gen = torch.Generator().manual_seed(28 + batch)
    f64 = torch.float64
    rate = torch.tensor([1.0, -0.5, -0.5, 0.0, 0.0, 0.0], dtype=f64) * 1e-3
    spin = torch.tensor([0.0, 0.0, 0.3], dtype=f64) * 1e-3
    x = {
        "deformation_rate": rate.expand(batch, 6).clone(),
        "vorticity": spin.expand(batch, 3).clone(),
        "elastic_strain~1": torch.zeros(batch, 6, dtype=f64),
        "t": torch.ones(batch, dtype=f64),
        "t~1": torch.zeros(batch, dtype=f64),
        "orientation~1": MRP.rand(batch, generator=gen).data,
        "slip_hardening~1": torch.zeros(batch, dtype=f64),
    }
    return {k: v.to(device) for k, v in x.items()}


def _close(got: torch.Tensor, ref: torch.Tensor, what: str) -> None:
    scale = float(ref.abs().max()) if ref.numel() else 1.0
    torch.testing.assert_close(got, ref, rtol=1e-10, atol=1e-12 + 1e-10 * scale, msg=what)


@pytest.mark.parametrize("batch", [5, 64])
def test_taylor_forward_matches_eager(routes: tuple[Model, Any], device: torch.device,
                                      batch: int) -> None:  # fmt: skip
    compiled, eager = routes
    x = grains(batch, device)
    got = compiled.forward(x)
    with torch.no_grad():
        ref = eager.call_by_name(x)
    assert list(got) == list(ref) == ["elastic_strain", "slip_hardening", "orientation"]
    for name, value in got.items():
        _close(value, ref[name].data, f"forward {name}")


def test_taylor_jacobian_matches_eager(routes: tuple[Model, Any], device: torch.device) -> None:
    compiled, eager = routes
    x = grains(8, device)
    values, J = compiled.jacobian(x)
    ref_values, ref_J = eager.jacobian(x)
    for name, value in values.items():
        _close(value, ref_values[name].data, f"jacobian value {name}")
    for out, inp in (("elastic_strain", "deformation_rate"), ("orientation", "orientation~1")):
        ref = ref_J[out][inp]
        ref = ref if isinstance(ref, torch.Tensor) else ref.data
        _close(J[out][inp].expand(ref.shape), ref, f"d {out} / d {inp}")
