"""Compiled artifacts as files: metadata, stub, moved bundle, compile cache."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from neml2.aoti.compile import _pipeline, cli, compile_model, read_metadata
from neml2.aoti.compile.testing import SCENARIOS
from neml2.hit import parse_file


def test_metadata_records_versions_and_leaf(
    artifact: Callable[[str], Path], dtype_name: str
) -> None:
    meta = read_metadata(artifact("elasticity"), "cpu", dtype_name)
    assert meta["torch_version"] == torch.__version__
    assert meta["cxx11_abi"] == bool(torch._C._GLIBCXX_USE_CXX11_ABI)
    (leaf,) = (lf for lf in meta["leaves"] if (lf["device"], lf["dtype"]) == ("cpu", dtype_name))
    assert leaf["path"] == f"cpu/{dtype_name}"
    graphs = sorted((artifact("elasticity") / leaf["path"]).glob("*.pt2"))
    assert graphs and sorted(leaf["sha1"]) == [g.name for g in graphs]
    for g in graphs:
        assert leaf["sha1"][g.name] == hashlib.sha1(g.read_bytes()).hexdigest()
    assert meta["inputs"] == [
        {"name": "strain", "var_type": "SR2", "base_shape": [6], "sub_batch_shape": [],
         "var_size": 6}
    ]  # fmt: skip
    assert meta["min_batch"] in (1, 2)


def test_moved_bundle_still_loads(
    artifact: Callable[[str], Path], dtype_name: str, dtype: torch.dtype, tmp_path: Path
) -> None:
    src = artifact("elasticity")
    stub = src.parent / "model_aoti.i"
    dest = tmp_path / "elsewhere" / "deeper"
    dest.mkdir(parents=True)
    shutil.copytree(src, dest / src.name)
    shutil.copy(stub, dest / stub.name)
    block = parse_file(dest / stub.name).find_section("Models/model")
    assert block is not None
    rel = block.get_str("artifact_path")
    assert not Path(rel).is_absolute()
    root = (dest / rel).resolve()
    meta = read_metadata(root, "cpu", dtype_name)
    g = torch._inductor.aoti_load_package(str(root / "cpu" / dtype_name / "model.pt2"))
    x = torch.rand(3, 6, dtype=dtype)
    E = torch.full((3,), meta["parameters"][0]["values"][0], dtype=dtype)
    (a,) = g(x, E)
    (b,) = torch._inductor.aoti_load_package(str(src / "cpu" / dtype_name / "model.pt2"))(x, E)
    assert torch.equal(a, b)


def test_cached_recompile(
    scenario_file: Any,
    artifact: Callable[[str], Path],
    dtype_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifact("elasticity")  # the shared build (or a previous run) filled the cache
    lines: list[str] = []
    kw = dict(SCENARIOS["elasticity"], dtype=dtype_name, progress=lines.append)
    compile_model(scenario_file("elasticity"), output_dir=tmp_path / "a", **kw)
    lines.clear()

    def no_lowering(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a cached recompile must not export or lower any graph")

    monkeypatch.setattr(_pipeline, "export_graph", no_lowering)
    monkeypatch.setattr(_pipeline, "lower_all", no_lowering)
    meta = compile_model(scenario_file("elasticity"), output_dir=tmp_path / "b", **kw)
    leaf = tmp_path / "b" / "model" / "cpu" / dtype_name
    names = ["model.pt2", "model_jvp.pt2", "model_pjac.pt2"]
    assert lines == [f"[{k + 1}/3] {leaf / n}" for k, n in enumerate(names)]
    for n in names:
        assert (leaf / n).read_bytes() == (
            tmp_path / "a" / "model" / "cpu" / dtype_name / n
        ).read_bytes()
    on_disk = json.loads((tmp_path / "b" / "model" / "metadata.json").read_text())
    assert on_disk == meta
    assert (tmp_path / "b" / "model_aoti.i").is_file()


class _Lowered(Exception):
    """Raised by the stand-in lowering: the pipeline tried to lower graphs."""


def test_no_cache_and_jobs_reach_the_lowering(
    scenario_file: Any,
    artifact: Callable[[str], Path],
    dtype_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifact("elasticity")
    kw = dict(SCENARIOS["elasticity"], dtype=dtype_name, progress=None)
    compile_model(scenario_file("elasticity"), output_dir=tmp_path / "warm", **kw)  # cache filled
    calls: list[tuple[list[str], int]] = []

    def fake_lower_all(jobs: Any, leaf: Path, n_jobs: int = 1, progress: Any = None) -> None:
        calls.append((sorted(j.filename for j in jobs), n_jobs))
        raise _Lowered

    monkeypatch.setattr(_pipeline, "lower_all", fake_lower_all)
    argv = [str(scenario_file("elasticity")), "--model", "model", "-p", "model.E",
            "-d", "stress:strain", "-d", "stress:model.E", "--dtype", dtype_name,
            "--output-dir", str(tmp_path / "out"), "-q", "-j", "2"]  # fmt: skip
    assert cli.main(argv) == 0  # the same request: served from the cache, nothing lowered
    assert calls == []
    with pytest.raises(_Lowered):
        cli.main([*argv, "--no-cache"])
    assert calls == [(["model.pt2", "model_jvp.pt2", "model_pjac.pt2"], 2)]


@pytest.mark.parametrize(
    ("scenario", "derivative_graphs", "scalarized_graphs"),
    [
        ("elasticity", {"model_jvp.pt2", "model_pjac.pt2"}, set()),
        (
            "scalar_implicit",
            {"model_jacobian_given.pt2", "model_dr_dparam.pt2"},
            {"model_jacobian.pt2", "model_residual.pt2"},
        ),
    ],
)
def test_derivative_graphs_get_their_inductor_options(
    scenario_file: Any,
    scenario: str,
    derivative_graphs: set[str],
    scalarized_graphs: set[str],
    dtype_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Graphs computing derivatives store shared pointwise expressions; value graphs do not;
    the scalarized Newton graphs are lowered as one unbounded fusion."""
    seen: dict[str, dict[str, Any]] = {}

    def fake_lower_all(jobs: Any, leaf: Path, n_jobs: int = 1, progress: Any = None) -> None:
        seen.update({j.filename: j.inductor_configs for j in jobs})
        raise _Lowered

    monkeypatch.setattr(_pipeline, "lower_all", fake_lower_all)
    kw = SCENARIOS[scenario]
    options = [a for p in kw.get("promote", ()) for a in ("-p", p)]
    options += [a for d in kw.get("derivatives", ()) for a in ("-d", d)]
    argv = [str(scenario_file(scenario)), "--model", kw["model"], *options, "--dtype", dtype_name,
            "--output-dir", str(tmp_path), "-q", "--no-cache"]  # fmt: skip
    with pytest.raises(_Lowered):
        cli.main(argv)
    assert derivative_graphs | scalarized_graphs <= set(seen)
    for name, configs in seen.items():
        assert configs["aot_inductor.compile_wrapper_opt_level"] == "O1"
        assert (configs.get("realize_cpu_opcount_threshold") == 4) == (name in derivative_graphs), (
            name
        )
        assert (configs.get("cpp.enable_loop_tail_vec") is False) == (name in derivative_graphs), (
            name
        )
        scalar = name in scalarized_graphs
        assert (configs.get("cpp.enable_tiling_heuristics") is False) == scalar, name
        assert (configs.get("max_fusion_size", 0) >= 10**6) == scalar, name
        vector_width = name in derivative_graphs | scalarized_graphs and _has_avx2()
        assert ("cpp.simdlen" in configs) == vector_width, name


def _has_avx2() -> bool:
    from torch._inductor.cpu_vec_isa import valid_vec_isa_list

    return any(isa.bit_width() == 256 for isa in valid_vec_isa_list())


def test_each_graph_records_its_signature(artifact: Callable[[str], Path], dtype_name: str) -> None:
    """The value graph of the elasticity scenario: strain (B, 6) and the promoted E (B,) in,
    stress (B, 6) out, in the leaf's dtype, read back through torch's own package loader."""
    path = artifact("elasticity") / "cpu" / dtype_name / "model.pt2"
    loaded = torch._inductor.aoti_load_package(str(path))
    signature = json.loads(loaded.get_metadata()["neml2_signature"])
    spec = {"dtype": dtype_name, "device": "cpu"}
    assert signature["inputs"] == [{**spec, "shape": [-1, 6]}, {**spec, "shape": [-1]}]
    assert signature["outputs"] == [{**spec, "shape": [-1, 6]}]
