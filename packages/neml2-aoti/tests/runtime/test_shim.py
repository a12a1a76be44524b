"""The ``AOTIModel`` shim: a compiled artifact behind the py-eager model interface."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

import neml2
from neml2._registry import registry
from neml2.aoti import AOTIModel, FatalError, Model
from neml2.models import RouteModel
from neml2.tensors import SR2, Scalar
from runtime._scenarios import relax_eager_for_float32, relax_for_float32

Inputs = Callable[[Model, int], dict[str, torch.Tensor]]


def _close(got: torch.Tensor, ref: torch.Tensor) -> None:
    """1e-10 relative in float64, 5e-4 in float32 (relaxed implicit solves; atol scaled)."""
    rtol = 1e-10 if ref.dtype == torch.float64 else 5e-4
    scale = float(ref.detach().abs().max()) if ref.numel() else 1.0
    torch.testing.assert_close(got, ref.detach(), rtol=rtol, atol=rtol * (1.0 + scale))


def _load(stub: Path, device: torch.device, dtype: torch.dtype) -> Any:
    return relax_for_float32(neml2.load_model(stub, "model", device=device, dtype=dtype))


def _is_route_model(shim: AOTIModel) -> RouteModel:
    """Static check (mypy): the shim has the call surface every Python route offers."""
    return shim


def test_registered_through_entry_point() -> None:
    eps = importlib.metadata.entry_points(group="neml2.objects")
    assert any(ep.value == "neml2.aoti._shim" for ep in eps)
    assert registry.get("Models", "AOTIModel") is AOTIModel


def test_shim_is_imported_lazily() -> None:
    """``import neml2.aoti`` leaves the shim (and the factory it needs) alone until asked."""
    code = (
        "import sys, neml2.aoti\n"
        "lazy = ('neml2.aoti._shim', 'neml2.factory', 'neml2.models.model')\n"
        "assert not any(m in sys.modules for m in lazy), [m for m in lazy if m in sys.modules]\n"
        "assert neml2.aoti.AOTIModel.__module__ == 'neml2.aoti._shim'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("scenario", ["elasticity", "chaboche"])
def test_load_model_matches_eager(
    scenario: str,
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    shim = _load(stub(scenario), device, dtype)
    eager = neml2.load_model(scenario_file(scenario), "model", device=device, dtype=dtype)
    relax_eager_for_float32(eager, dtype)
    assert isinstance(shim, AOTIModel)
    assert isinstance(shim, RouteModel) and isinstance(eager, RouteModel)
    assert shim.input_spec == eager.input_spec
    assert shim.output_spec == eager.output_spec
    x = scenario_inputs(shim.runtime, 5)
    typed = [cls(x[n]) for n, cls in shim.input_spec.items()]
    got = shim(*typed)
    ref = eager(*typed)
    ref = ref if isinstance(ref, tuple) else (ref,)
    assert isinstance(got, tuple) and len(got) == len(shim.output_spec)
    for g, r, cls in zip(got, ref, shim.output_spec.values(), strict=True):
        assert type(g) is cls and g.sub_batch_ndim == r.sub_batch_ndim
        _close(g.data, r.data)


def test_single_output_is_a_tuple(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    res = shim(SR2(scenario_inputs(shim.runtime, 3)["strain"]))
    assert isinstance(res, tuple) and len(res) == 1 and isinstance(res[0], SR2)


def test_param_jacobian_is_outputs_and_blocks(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    """NEML2 v3's ``(outputs, P)``: typed outputs as ``forward`` gives them, raw blocks."""
    shim = _load(stub("elasticity"), device, dtype)
    x = scenario_inputs(shim.runtime, 4)
    outputs, P = shim.param_jacobian({"strain": SR2(x["strain"])})
    (stress,) = shim(SR2(x["strain"]))
    assert list(outputs) == ["stress"] and isinstance(outputs["stress"], SR2)
    _close(outputs["stress"].data, stress.data)
    E = shim.runtime.named_parameters()["model.E"]
    _close(P["stress"]["model.E"], stress.data / E)


def test_batchless_input_gives_batchless_output(
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    eager = neml2.load_model(scenario_file("elasticity"), "model", device=device, dtype=dtype)
    e = SR2(torch.tensor([1e-3, -2e-4, 5e-4, 1e-4, 0.0, 3e-4], device=device, dtype=dtype))
    (got,) = shim(e)
    assert got.data.shape == (6,)
    _close(got.data, eager(e).data)


def test_dynamic_batch_broadcasts(
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    """A batch-less time next to batched state: lifted to the batch, as eager does."""
    shim = _load(stub("chaboche"), device, dtype)
    eager = neml2.load_model(scenario_file("chaboche"), "model", device=device, dtype=dtype)
    relax_eager_for_float32(eager, dtype)
    x = scenario_inputs(shim.runtime, 4)
    x["t"] = x["t"][0]
    x["t~1"] = x["t~1"][0]
    got = shim.call_by_name(x)
    ref = eager.call_by_name(x)
    for n in shim.output_spec:
        assert got[n].data.shape == ref[n].data.shape
        _close(got[n].data, ref[n].data)


def test_tangents_are_rejected(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    e = SR2(scenario_inputs(shim.runtime, 2)["strain"])
    with pytest.raises(TypeError, match=r"jacobian\(\)"):
        shim(e, v={"strain": {"x": e}})


def test_wrong_dtype_is_a_type_error(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    other = torch.float32 if dtype == torch.float64 else torch.float64
    e = SR2(scenario_inputs(shim.runtime, 2)["strain"].to(other))
    with pytest.raises(TypeError, match=r"'strain'.*no silent cast"):
        shim(e)


def test_wrong_device_is_a_type_error(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    e = SR2(scenario_inputs(shim.runtime, 2)["strain"].to("meta"))
    with pytest.raises(TypeError, match=r"'strain' is .* on meta"):
        shim(e)


def test_wrong_wrapper_type(
    stub: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    with pytest.raises(TypeError, match="'strain' is a Scalar, expected a SR2"):
        shim(Scalar(torch.zeros(2, device=device, dtype=dtype)))


def test_parameter_with_wrong_dtype_is_refused(
    stub: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    E = dict(shim.named_parameters())["model.E"]
    other = torch.float32 if dtype == torch.float64 else torch.float64
    with pytest.raises(FatalError, match=r"model\.E"):
        shim.set_parameter("model.E", E.to(other))


def test_to_other_dtype_is_refused(
    stub: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    assert shim.to(dtype) is shim
    other = torch.float32 if dtype == torch.float64 else torch.float64
    with pytest.raises(TypeError, match="cannot be converted"):
        shim.to(other)


def test_parameters_forwarded(
    stub: Callable[[str], Path], scenario_inputs: Inputs, device: torch.device, dtype: torch.dtype
) -> None:
    shim = _load(stub("elasticity"), device, dtype)
    e = SR2(scenario_inputs(shim.runtime, 3)["strain"])
    (before,) = shim(e)
    assert shim.parameter_base_shapes() == {"model.E": ()}
    dict(shim.named_parameters())["model.E"].mul_(3.0)
    (after,) = shim(e)
    torch.testing.assert_close(after.data, 3.0 * before.data)
    shim.set_parameter("model.E", dict(shim.named_parameters())["model.E"] / 3.0)
    (back,) = shim(e)
    torch.testing.assert_close(back.data, before.data)


def test_jacobian_and_jvp(
    stub: Callable[[str], Path],
    scenario_file: Callable[[str], Path],
    scenario_inputs: Inputs,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    shim = _load(stub("chaboche"), device, dtype)
    eager = neml2.load_model(scenario_file("chaboche"), "model", device=device, dtype=dtype)
    relax_eager_for_float32(eager, dtype)
    x = scenario_inputs(shim.runtime, 3)
    _, J = shim.jacobian(x)
    _, ref_J = eager.jacobian(x)
    ref = ref_J["stress"]["strain"]
    _close(J["stress"]["strain"], getattr(ref, "data", ref))
    t = {"strain": torch.ones_like(x["strain"])}
    _, d = shim.jvp(x, t)
    _, ref_d = eager.jvp(x, t)
    assert isinstance(d["stress"], SR2)
    _close(d["stress"].data, ref_d["stress"].data)


# ---------------------------------------------------------------------------- stubs on disk
def _bundle(stub: Path, tmp_path: Path) -> Path:
    """Copy the stub and its artifact folder (named by artifact_path) into tmp_path/moved."""
    dst = tmp_path / "moved"
    dst.mkdir()
    shutil.copy(stub, dst / stub.name)
    folder = stub.parent / _artifact_path(stub)
    shutil.copytree(folder, dst / _artifact_path(stub))
    return dst / stub.name


def _artifact_path(stub: Path) -> str:
    for line in stub.read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "artifact_path":
            return value.strip().strip("'\"")
    raise AssertionError(f"{stub} has no artifact_path")


def test_moved_bundle_loads(
    stub: Callable[[str], Path],
    scenario_inputs: Inputs,
    tmp_path: Path,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    original = _load(stub("elasticity"), device, dtype)
    moved = _load(_bundle(stub("elasticity"), tmp_path), device, dtype)
    assert moved.artifact_root.is_relative_to(tmp_path)
    e = SR2(scenario_inputs(original.runtime, 3)["strain"])
    assert torch.equal(moved(e)[0].data, original(e)[0].data)


def _one_line_error(stub: Path, device: torch.device, dtype: torch.dtype) -> str:
    with pytest.raises(FatalError) as e:
        _load(stub, device, dtype)
    text = str(e.value)
    assert "\n" not in text, text
    assert f"{stub}:" in text, text
    return text


def test_stub_with_missing_folder(
    stub: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    moved = _bundle(stub("elasticity"), tmp_path)
    folder = moved.parent / _artifact_path(moved)
    shutil.rmtree(folder)
    text = _one_line_error(moved, device, dtype)
    assert str(folder) in text and "neml2-compile" in text


@pytest.mark.parametrize(
    ("key", "value"), [("schema_version", 999), ("torch_version", "1.0.0"), ("format", "other")]
)
def test_stub_with_incompatible_metadata(
    key: str,
    value: object,
    stub: Callable[[str], Path],
    tmp_path: Path,
    device: torch.device,
    dtype: torch.dtype,
) -> None:
    moved = _bundle(stub("elasticity"), tmp_path)
    meta = moved.parent / _artifact_path(moved) / "metadata.json"
    data = json.loads(meta.read_text())
    data[key] = value
    meta.write_text(json.dumps(data))
    text = _one_line_error(moved, device, dtype)
    assert str(value) in text and "neml2-compile" in text
    assert str(moved.parent / _artifact_path(moved)) in text


def test_stub_for_missing_leaf(
    stub: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    """Asking for a dtype that was not compiled names the leaves that exist."""
    other = torch.float32 if dtype == torch.float64 else torch.float64
    root = stub("elasticity").parent / _artifact_path(stub("elasticity"))
    if (root / device.type / str(other).removeprefix("torch.")).is_dir():
        pytest.skip("both leaves were compiled")
    text = _one_line_error(stub("elasticity"), device, other)
    assert str(dtype).removeprefix("torch.") in text


def test_stub_with_unknown_var_type(
    stub: Callable[[str], Path], tmp_path: Path, device: torch.device, dtype: torch.dtype
) -> None:
    moved = _bundle(stub("elasticity"), tmp_path)
    meta = moved.parent / _artifact_path(moved) / "metadata.json"
    data = json.loads(meta.read_text())
    data["inputs"][0]["var_type"] = "NotATensorType"
    meta.write_text(json.dumps(data))
    text = _one_line_error(moved, device, dtype)
    assert "'strain'" in text and "NotATensorType" in text and "neml2-compile" in text


def test_v3_meta_path_keyword(
    artifact: Callable[[str], Path], device: torch.device, dtype: torch.dtype
) -> None:
    """``AOTIModel(meta_path)`` as NEML2 v3 documents it (the folder, metadata.json or
    ``<model>_meta.json``); ``artifact_path=`` is the same; exactly one of them."""
    root = artifact("elasticity")
    e = SR2(torch.tensor([1e-3, -2e-4, 5e-4, 1e-4, 0.0, 3e-4], device=device, dtype=dtype))
    want = AOTIModel(root, device=device, dtype=dtype)(e)[0].data
    for given in (root / "metadata.json", root / "model_meta.json"):
        got = AOTIModel(meta_path=given, device=device, dtype=dtype)
        assert got.artifact_root == root
        assert torch.equal(got(e)[0].data, want)
    alias = AOTIModel(artifact_path=root, device=device, dtype=dtype)
    assert torch.equal(alias(e)[0].data, want)
    with pytest.raises(TypeError, match="exactly one"):
        AOTIModel(root, artifact_path=root)
    with pytest.raises(TypeError, match="exactly one"):
        AOTIModel()
