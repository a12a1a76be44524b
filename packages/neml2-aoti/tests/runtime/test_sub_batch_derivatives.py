"""Compiled derivatives of sub-batched variables (ARTIFACT.md §3.1, "Sub-batched pairs"), on the
``sub_batch`` scenario: ``y = -2 x^2`` per site for ``x`` of 3 sites, next to plain-batch
linear elasticity. ``dy/dx`` is site-diagonal: ``jacobian`` returns one derivative per site,
``-4 x`` (hand derivative), in py-eager's layout; ``jvp`` contracts the full per-site matrix.
The promoted ``scaling`` gives ``dy/dscaling = x^2`` per site. A site-diagonal declaration that
does not fit the artifact is a load error naming the pair."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

import neml2
from neml2.aoti import FatalError, Model
from neml2.tensors import SR2, Scalar


def _close(got: torch.Tensor, want: torch.Tensor) -> None:
    """Equal to 1e-13 relative: each entry is a product of two or three numbers."""
    torch.testing.assert_close(got, want, rtol=1e-13, atol=0.0)


@pytest.fixture
def sub_batch(artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype) -> Path:
    if dtype != torch.float64:
        pytest.skip("the sub_batch scenario is compiled in float64 only")
    return artifact("sub_batch")


def _inputs(batch: int, device: torch.device) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(27)
    f64 = torch.float64
    x = 0.5 + torch.rand(batch, 3, generator=gen, dtype=f64)
    strain = 1e-3 * (torch.rand(batch, 6, generator=gen, dtype=f64) - 0.5)
    return {"x": x.to(device), "strain": strain.to(device)}


@pytest.mark.parametrize("batch", [0, 1, 5])
def test_site_diagonal_block_is_per_site(
    sub_batch: Path, device: torch.device, dtype: torch.dtype, batch: int
) -> None:
    m = Model(sub_batch, device, dtype)
    assert m.jacobian_block_shape("y", "x") == [3]
    assert m.jacobian_block_shape("stress", "strain") == [6, 6]
    x = _inputs(batch, device)
    _, J = m.jacobian(x)
    assert J["y"]["x"].shape == (batch, 3)
    _close(J["y"]["x"], -4.0 * x["x"])
    tx = torch.rand(batch, 3, dtype=dtype).to(device)
    _, dy = m.jvp(x, {"x": tx})
    _close(dy["y"], -4.0 * x["x"] * tx)
    _, P = m.param_jacobian(x)
    _close(P["y"]["square.scaling"], x["x"] ** 2)


def test_blocks_equal_py_eager(
    sub_batch: Path, scenario_file: Callable[[str], Path], device: torch.device,
    dtype: torch.dtype,
) -> None:  # fmt: skip
    m = Model(sub_batch, device, dtype)
    eager = neml2.load_model(scenario_file("sub_batch"), "model", device=device, dtype=dtype)
    x = _inputs(4, device)
    typed = {"x": Scalar(x["x"], sub_batch_ndim=1), "strain": SR2(x["strain"])}
    _, ref = eager.jacobian(typed)
    _, J = m.jacobian(x)
    for o, i in m.derivatives:
        torch.testing.assert_close(J[o][i], ref[o][i].data, rtol=1e-12, atol=1e-12)
    _, pref = eager.param_jacobian(typed)
    _, P = m.param_jacobian(x)
    for o, p in m.parameter_derivatives:
        torch.testing.assert_close(P[o][p], pref[o][p], rtol=1e-12, atol=1e-12)


def test_metadata_lists_the_site_diagonal_pairs(sub_batch: Path) -> None:
    meta = json.loads((sub_batch / "metadata.json").read_text())
    assert meta["site_diagonal_derivatives"] == [["y", "x"]]


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        (["stress", "x"], "not a compiled derivative pair"),
        (["stress", "strain"], "same non-empty sub-batch shape"),
    ],
)
def test_bad_site_diagonal_declaration(
    sub_batch: Path, tmp_path: Path, device: torch.device, dtype: torch.dtype,
    pair: list[str], message: str,
) -> None:  # fmt: skip
    root = tmp_path / sub_batch.name
    shutil.copytree(sub_batch, root)
    meta = root / "metadata.json"
    data = json.loads(meta.read_text())
    data["site_diagonal_derivatives"] = [pair]
    meta.write_text(json.dumps(data))
    with pytest.raises(FatalError, match=message) as e:
        Model(root, device, dtype)
    assert f"[{pair[0]}, {pair[1]}]" in str(e.value)
