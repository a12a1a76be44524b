"""The graph level of the compile cache: a graph is lowered once, whatever request exports it.

The keys are checked on small exported programs (no lowering); one real compile then shows that
a new value of a promoted parameter is served from the cache with no lowering at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from neml2.aoti.compile import _cache, _lower, _pipeline
from neml2.aoti.compile.testing import scenarios_dir

SCENARIOS = scenarios_dir()


class _Scale(nn.Module):
    """``a * x`` with a buffer ``unused`` that no node reads."""

    a: torch.Tensor

    def __init__(self, a: float, unused: float, dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        self.register_buffer("a", torch.tensor(a, dtype=dtype))
        self.register_buffer("unused", torch.tensor(unused, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a * x


class _ScaleElsewhere(_Scale):
    """The same graph traced from code on another source line."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a * x


def _fingerprint(module: nn.Module, n: int = 3) -> str:
    x = torch.ones(n, dtype=next(iter(module.buffers())).dtype)
    return _cache.program_fingerprint(torch.export.export(module, (x,)))


def test_fingerprint_reads_graph_and_used_constants_only() -> None:
    base = _fingerprint(_Scale(2.0, 0.0))
    assert _fingerprint(_Scale(2.0, 0.0)) == base, "deterministic"
    assert _fingerprint(_Scale(2.0, 5.0)) == base, "an unused constant's value is not read"
    assert _fingerprint(_Scale(3.0, 0.0)) != base, "a used constant's value is"
    assert _fingerprint(_Scale(2.0, 0.0), n=4) != base, "so are shapes"
    assert _fingerprint(_Scale(2.0, 0.0, torch.float32)) != base, "and dtypes"
    assert _fingerprint(_ScaleElsewhere(2.0, 0.0)) == base, "not where the traced code lives"


def test_graph_key_reads_configs_and_target() -> None:
    ep = torch.export.export(_Scale(2.0, 0.0), (torch.ones(3, dtype=torch.float64),))
    key = _cache.graph_key(ep, {"a": 1}, {"device": "cpu", "cpu_features": ["avx2"]})
    assert key == _cache.graph_key(ep, {"a": 1}, {"device": "cpu", "cpu_features": ["avx2"]})
    assert key != _cache.graph_key(ep, {"a": 2}, {"device": "cpu", "cpu_features": ["avx2"]})
    assert key != _cache.graph_key(ep, {"a": 1}, {"device": "cuda", "cpu_features": ["avx2"]})
    assert key != _cache.graph_key(ep, {"a": 1}, {"device": "cpu", "cpu_features": []})


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder for this test (``$NEML2_COMPILE_CACHE``)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("NEML2_COMPILE_CACHE", str(root))
    return root


def test_cached_graphs_lowers_each_key_once(cache: Path, tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def lower_into(folder: Path) -> _cache.Lower:
        def lower(names: list[str]) -> None:
            calls.append(sorted(names))
            for name in names:
                (folder / name).write_text(f"lowered {name}")

        return lower

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    keys = {"a.pt2": "k1", "b.pt2": "k2"}
    assert sorted(_cache.cached_graphs(keys, first, lower_into(first))) == ["a.pt2", "b.pt2"]
    # another leaf asking for k1 under a new name, and a new key k3: only k3 is lowered
    assert _cache.cached_graphs({"x.pt2": "k1", "y.pt2": "k3"}, second, lower_into(second)) == [
        "y.pt2"
    ]
    assert calls == [["a.pt2", "b.pt2"], ["y.pt2"]]
    assert (second / "x.pt2").read_text() == "lowered a.pt2"
    assert not list((cache / "graphs").glob(".k*")), "temp names are renamed into place"


def test_failed_lowering_caches_nothing(cache: Path, tmp_path: Path) -> None:
    def fail(names: list[str]) -> None:
        raise RuntimeError("C++ compile failed")

    with pytest.raises(RuntimeError, match="C\\+\\+ compile failed"):
        _cache.cached_graphs({"a.pt2": "k1"}, tmp_path, fail)
    assert not list((cache / "graphs").glob("*.pt2"))


def _isotropic_stress(strain: torch.Tensor, E: float, nu: float) -> torch.Tensor:
    """``λ tr(ε) I + 2μ ε`` in Mandel notation (both sides scale shear terms by √2)."""
    lam, mu = E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))
    identity = torch.tensor([1.0, 1, 1, 0, 0, 0], dtype=strain.dtype)
    return lam * strain[..., :3].sum(-1, keepdim=True) * identity + 2 * mu * strain


def _compile_elasticity(E: float, nu: float, dtype: torch.dtype, out: Path) -> Path:
    """The elasticity scenario with ``E`` promoted, ``nu`` baked."""
    _pipeline.compile_model(
        SCENARIOS / "elasticity.i", model="model", promote=["model.E"],
        dtype=str(dtype).removeprefix("torch."), artifact_dir=out, stub=False,
        overrides=[f"Models/model/coefficients:='{E} {nu}'"],
    )  # fmt: skip
    return out


def _forbid(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cache holds these graphs: nothing is to be exported or lowered")

    for name in names:
        monkeypatch.setattr(_pipeline, name, forbidden)


def test_new_promoted_value_compiles_nothing(
    cache: Path, tmp_path: Path, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that differs in a promoted parameter's value only hits the value-free request
    key: no export, no lowering, the same graph, the new value in the metadata."""
    from neml2.aoti import Model

    first = _compile_elasticity(1e3, 0.3, dtype, tmp_path / "first")
    _forbid(monkeypatch, "lower_all", "export_graph")
    second = _compile_elasticity(2e3, 0.3, dtype, tmp_path / "second")
    graph = Path("cpu") / str(dtype).removeprefix("torch.") / "model.pt2"
    assert (second / graph).read_bytes() == (first / graph).read_bytes()

    strain = torch.tensor([[1e-3, -2e-4, 5e-4, 3e-4, -1e-4, 2e-4]], dtype=dtype)
    for folder, E in ((first, 1e3), (second, 2e3)):
        model = Model(folder, dtype=dtype)
        assert float(dict(model.named_parameters())["model.E"]) == E
        stress = model.forward({"strain": strain})["stress"]
        rtol = 1e-12 if dtype == torch.float64 else 1e-6
        torch.testing.assert_close(stress, _isotropic_stress(strain, E, 0.3), rtol=rtol, atol=0)


def test_new_baked_value_in_a_masked_option_compiles_again(
    cache: Path, tmp_path: Path, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``coefficients`` sets the promoted E and the baked nu: masking it hides nu's value from
    the keyed text, and the baked-constant fingerprint must still tell the requests apart."""
    from neml2.aoti import Model

    _compile_elasticity(1e3, 0.3, dtype, tmp_path / "first")
    lower, export = _lower.lower_all, _lower.export_graph  # what _pipeline imported
    _forbid(monkeypatch, "lower_all")  # another nu: another graph, which only export can tell
    exported = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        exported.append(args)
        return export(*args, **kwargs)

    monkeypatch.setattr(_pipeline, "export_graph", counted)
    with pytest.raises(AssertionError, match="nothing is to be exported or lowered"):
        _compile_elasticity(1e3, 0.25, dtype, tmp_path / "second")
    assert exported
    monkeypatch.setattr(_pipeline, "lower_all", lower)
    second = _compile_elasticity(1e3, 0.25, dtype, tmp_path / "second")
    strain = torch.tensor([[1e-3, -2e-4, 5e-4, 3e-4, -1e-4, 2e-4]], dtype=dtype)
    stress = Model(second, dtype=dtype).forward({"strain": strain})["stress"]
    rtol = 1e-12 if dtype == torch.float64 else 1e-6
    torch.testing.assert_close(stress, _isotropic_stress(strain, 1e3, 0.25), rtol=rtol, atol=0)


def test_no_value_free_key_without_a_recorded_option(monkeypatch: pytest.MonkeyPatch) -> None:
    import neml2
    from neml2.aoti.compile._value_free import promoted_options

    model = neml2.load_model(SCENARIOS / "elasticity.i", "model")
    assert promoted_options(model, ["E"]) == ["Models/model/coefficients"]
    monkeypatch.setattr(model, "parameter_option", lambda name: None)  # declared by code
    assert promoted_options(model, ["E"]) is None


def test_baked_fingerprint_reads_plain_attributes_but_the_masked_option() -> None:
    """A value a model keeps as plain data changes the fingerprint; the promoted parameter's own
    option, masked in the keyed text, does not; nor does the promoted parameter's tensor."""
    import neml2
    from neml2.aoti.compile._value_free import baked_fingerprint

    model = neml2.load_model(SCENARIOS / "elasticity.i", "model")
    before = baked_fingerprint(model, ["E"])
    model.coefficients = ["2000.0", "0.3"]  # the masked option as given
    with torch.no_grad():
        model.E.fill_(2e3)
    assert baked_fingerprint(model, ["E"]) == before
    model.copied_modulus = 2e3  # e.g. a float a model derived at construction
    assert baked_fingerprint(model, ["E"]) != before
    assert baked_fingerprint(model, []) != baked_fingerprint(model, ["E"])
