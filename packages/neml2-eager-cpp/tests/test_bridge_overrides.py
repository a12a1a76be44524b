"""``EagerModel.with_overrides``: the ``param_overrides`` of ``neml2::eager::Model`` set parameters
for one call and put the previous ones back, also when the call fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from neml2.eager._bridge import EagerModel

SCENARIOS = Path(os.environ["NEML2_SCENARIOS"])


@pytest.fixture
def model(device: torch.device, dtype: torch.dtype) -> EagerModel:
    return EagerModel(str(SCENARIOS / "elasticity.i"), "model", str(device), dtype)


def _x(m: EagerModel, batch: int = 3) -> dict[str, torch.Tensor]:
    return {"strain": torch.rand(batch, 6, dtype=m.dtype, device=m.device)}


def test_override_is_for_one_call(model: EagerModel) -> None:
    x = _x(model)
    E = model.named_parameters()["model.E"]
    y = model.forward(x)["stress"]
    y2 = model.with_overrides("forward", {"model.E": 2 * E}, x)["stress"]
    torch.testing.assert_close(y2, 2 * y)
    torch.testing.assert_close(model.named_parameters()["model.E"], E)
    torch.testing.assert_close(model.forward(x)["stress"], y)


def test_batched_override_is_restored(model: EagerModel) -> None:
    x = _x(model)
    E = model.named_parameters()["model.E"]
    scale = torch.tensor([1.0, 2.0, 3.0], dtype=model.dtype, device=model.device)
    y = model.forward(x)["stress"]
    y2 = model.with_overrides("forward", {"model.E": scale * E}, x)["stress"]
    torch.testing.assert_close(y2, scale[:, None] * y)
    assert model.named_parameters()["model.E"].shape == E.shape
    torch.testing.assert_close(model.forward(x)["stress"], y)


def test_restored_when_the_call_fails(model: EagerModel) -> None:
    E = model.named_parameters()["model.E"]
    bad = {"strain": torch.rand(3, 7, dtype=model.dtype, device=model.device)}
    with pytest.raises(Exception, match="strain"):
        model.with_overrides("forward", {"model.E": 2 * E}, bad)
    torch.testing.assert_close(model.named_parameters()["model.E"], E)


def test_unknown_name_is_set_parameters_error(model: EagerModel) -> None:
    E = model.named_parameters()["model.E"]
    with pytest.raises(ValueError, match=r"unknown parameter 'model\.G'"):
        model.with_overrides("forward", {"model.E": 2 * E, "model.G": E}, _x(model))
    torch.testing.assert_close(model.named_parameters()["model.E"], E)


def test_every_evaluation(model: EagerModel) -> None:
    x = _x(model)
    E = model.named_parameters()["model.E"]
    c = {"stress": torch.ones(3, 6, dtype=model.dtype, device=model.device)}
    _, J = model.jacobian(x)
    _, J2 = model.with_overrides("jacobian", {"model.E": 2 * E}, x)
    torch.testing.assert_close(J2["stress"]["strain"], 2 * J["stress"]["strain"])
    _, dy = model.jvp(x, x)
    _, dy2 = model.with_overrides("jvp", {"model.E": 2 * E}, x, x)
    torch.testing.assert_close(dy2["stress"], 2 * dy["stress"])
    _, P = model.param_jacobian(x)
    _, P2 = model.with_overrides("param_jacobian", {"model.E": 2 * E}, x)
    torch.testing.assert_close(P2["stress"]["model.E"], P["stress"]["model.E"])  # linear in E
    g = model.param_vjp(x, c)
    g2 = model.with_overrides("param_vjp", {"model.E": 2 * E}, x, c)
    torch.testing.assert_close(g2["model.E"], g["model.E"])
    torch.testing.assert_close(model.named_parameters()["model.E"], E)
