"""TransientRegression: gold written by this project's driver (after checking it against the
closed form), perturbations reported per variable, legacy TorchScript gold, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from driver_scenario import make, write_case
from narrow import narrow
from torch import nn

from neml2.drivers import ComparisonError, TransientDriver, TransientRegression
from neml2.factory import load_input

COVERED_TYPES = {"TransientRegression"}
_script: Any = torch.jit.script  # legacy TorchScript gold files


def _gold(tmp_path: Path) -> tuple[str, dict[str, torch.Tensor]]:
    sc = make(nsteps=5, batch=1)
    path = write_case(tmp_path, sc)
    driver = narrow(load_input(path).get_driver("driver"), TransientDriver)
    driver.run()
    res = {k: v.detach() for k, v in driver.result().items()}
    # the gold pins verified behaviour: check it against the closed form first
    stress, xs = sc.stress(), sc.x()
    for k in range(1, sc.nsteps):
        np.testing.assert_allclose(res[f"output.{k}.stress"].numpy(), stress[k], rtol=1e-12)
        np.testing.assert_allclose(float(res[f"output.{k}.x"]), xs[k], rtol=1e-12)
    torch.save(res, tmp_path / "gold.pt")
    return path, res


def _regression(path: str) -> TransientRegression:
    reg = load_input(path).get_driver("regression")
    assert isinstance(reg, TransientRegression)
    return reg


def test_passes_on_own_gold(tmp_path: Path) -> None:
    path, _ = _gold(tmp_path)
    assert _regression(path).run() is True


def test_extra_result_keys_are_ignored(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    torch.save({k: v for k, v in gold.items() if k.startswith("output.")}, tmp_path / "gold.pt")
    assert _regression(path).run() is True


def test_perturbed_values_are_listed(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    bad = dict(gold)
    delta = torch.tensor([0.0, 0.0, 2.5e-3, 0.0, 0.0, 0.0], dtype=torch.float64)
    bad["output.2.stress"] = gold["output.2.stress"] + delta
    bad["output.3.x"] = gold["output.3.x"] * 1.01
    torch.save(bad, tmp_path / "gold.pt")
    with pytest.raises(ComparisonError) as info:
        _regression(path).run()
    msg = str(info.value)
    assert "2 of" in msg.splitlines()[0]
    lines = {ln.split(":")[0].strip(): ln for ln in msg.splitlines()[1:]}
    assert set(lines) == {"output.2.stress", "output.3.x"}
    s = lines["output.2.stress"]
    max_abs = float(s.split("max_abs=")[1].split(",")[0])
    max_rel = float(s.split("max_rel=")[1])
    ref = float(bad["output.2.stress"][0, 2])
    assert max_abs == pytest.approx(2.5e-3, rel=1e-6)
    assert max_rel == pytest.approx(2.5e-3 / abs(ref), rel=1e-6)
    x_rel = float(lines["output.3.x"].split("max_rel=")[1])
    assert x_rel == pytest.approx(0.01 / 1.01, rel=1e-6)


def test_tolerances_are_honoured(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    torch.save({k: v * (1 + 1e-7) for k, v in gold.items()}, tmp_path / "gold.pt")
    assert _regression(path).run() is True
    reg = load_input(path, additional_args=["Drivers/regression/rtol=1e-9"]).get_driver(
        "regression"
    )
    with pytest.raises(ComparisonError):
        reg.run()


def test_listing_is_capped(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    torch.save({k: v + 1.0 for k, v in gold.items()}, tmp_path / "gold.pt")
    with pytest.raises(ComparisonError) as info:
        _regression(path).run()
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + 10 + 1
    assert lines[-1] == f"  ... and {len(gold) - 10} more"


def test_missing_shape_and_dtype(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    bad = dict(gold)
    bad["output.9.stress"] = gold["output.1.stress"]
    bad["output.1.stress"] = gold["output.1.stress"].squeeze(0)
    bad["output.2.x"] = gold["output.2.x"].float()
    torch.save(bad, tmp_path / "gold.pt")
    with pytest.raises(ComparisonError) as info:
        _regression(path).run()
    msg = str(info.value)
    assert "  output.9.stress: missing from the results" in msg
    assert "  output.1.stress: shape [1, 6] != reference shape [6]" in msg
    assert "  output.2.x: dtype torch.float64 != reference dtype torch.float32" in msg


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_legacy_torchscript_gold(tmp_path: Path) -> None:
    path, gold = _gold(tmp_path)
    root = nn.Module()
    for key in ("output.2.stress", "output.4.x", "input.3.t~1"):
        prefix, step, var = key.split(".")
        if not hasattr(root, prefix):
            root.add_module(prefix, nn.Module())
        group = getattr(root, prefix)
        if not hasattr(group, step):
            group.add_module(step, nn.Module())
        getattr(group, step).register_buffer(var, gold[key].clone())
    _script(root).save(str(tmp_path / "gold.pt"))
    assert _regression(path).run() is True
    getattr(root.output, "4").x.add_(1.0)
    _script(root).save(str(tmp_path / "gold.pt"))
    with pytest.raises(ComparisonError, match=r"  output.4.x: max_abs=1.0"):
        _regression(path).run()


def test_missing_reference_file(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=2))
    with pytest.raises(FileNotFoundError, match=r"reference file '.*gold.pt' does not exist"):
        _regression(path).run()


def test_reference_is_not_a_dict(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=2))
    torch.save([torch.zeros(1)], tmp_path / "gold.pt")
    with pytest.raises(ValueError, match=r"is not a dict of tensors \(got list\)"):
        _regression(path).run()


def test_driver_must_record_results(tmp_path: Path) -> None:
    path = write_case(tmp_path, make(nsteps=2))
    with pytest.raises(
        ValueError,
        match=r"\[Drivers/regression\].*option 'driver': "
        r"Verification records no results",
    ):
        load_input(path, additional_args=["Drivers/regression/driver:=verify"]).get_driver(
            "regression"
        )
