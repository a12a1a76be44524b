"""The wrapper of a lowering (raw output views, optimization level) and its retries after a C++
compile failure."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
import torch
from torch._inductor.exc import CppCompileError, InductorError

from neml2.aoti.compile import _lower
from neml2.aoti.compile._lower import (
    FALLBACK_WRAPPER_OPT,
    INDUCTOR_CONFIGS,
    WRAPPER_OPT_LEVEL,
)
from neml2.aoti.compile._wrapper import raw_output_views_active


def _compile_error(wrapped: bool) -> Exception:
    err = CppCompileError(["g++", "wrapper.cpp"], "internal compiler error: Segmentation fault")
    return InductorError(err, inspect.currentframe()) if wrapped else err


class _Recorder:
    """Stands in for the package compiler: records each attempt's wrapper level and whether it
    used the raw-view wrapper, and fails the first ``n_failures`` attempts with ``error``."""

    def __init__(self, error: Exception | None, n_failures: int) -> None:
        self.error = error
        self.n_failures = n_failures
        self.levels: list[tuple[str, bool]] = []

    def __call__(self, program: Any, path: str, configs: dict[str, Any]) -> str:
        self.levels.append((configs[WRAPPER_OPT_LEVEL], raw_output_views_active()))
        if self.error is not None and len(self.levels) <= self.n_failures:
            raise self.error
        return path


def test_wrappers_are_optimized_by_default() -> None:
    assert INDUCTOR_CONFIGS[WRAPPER_OPT_LEVEL] == "O1" != FALLBACK_WRAPPER_OPT


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
def test_a_cpp_compile_failure_is_retried_with_inductors_wrapper(
    monkeypatch: pytest.MonkeyPatch, wrapped: bool
) -> None:
    rec = _Recorder(_compile_error(wrapped), n_failures=1)
    monkeypatch.setattr(_lower, "_compile_package", rec)
    assert _lower._lower(object(), "out.pt2", dict(INDUCTOR_CONFIGS)) == "out.pt2"
    assert rec.levels == [("O1", True), ("O1", False)]
    assert not raw_output_views_active()  # the previous code generator is back


def test_a_second_failure_is_retried_at_the_fallback_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec = _Recorder(_compile_error(True), n_failures=2)
    monkeypatch.setattr(_lower, "_compile_package", rec)
    assert _lower._lower(object(), "out.pt2", dict(INDUCTOR_CONFIGS)) == "out.pt2"
    assert rec.levels == [("O1", True), ("O1", False), (FALLBACK_WRAPPER_OPT, False)]


def test_a_third_compile_failure_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _Recorder(_compile_error(True), n_failures=3)
    monkeypatch.setattr(_lower, "_compile_package", rec)
    with pytest.raises(InductorError, match=r"C\+\+ compile error"):
        _lower._lower(object(), "out.pt2", dict(INDUCTOR_CONFIGS))
    assert rec.levels == [("O1", True), ("O1", False), (FALLBACK_WRAPPER_OPT, False)]
    assert not raw_output_views_active()


def test_a_failure_at_the_fallback_level_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _Recorder(_compile_error(False), n_failures=2)
    monkeypatch.setattr(_lower, "_compile_package", rec)
    with pytest.raises(CppCompileError):
        _lower._lower(object(), "out.pt2", {WRAPPER_OPT_LEVEL: FALLBACK_WRAPPER_OPT})
    assert rec.levels == [(FALLBACK_WRAPPER_OPT, True), (FALLBACK_WRAPPER_OPT, False)]


def test_other_lowering_errors_are_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _Recorder(ValueError("unsupported operator"), n_failures=1)
    monkeypatch.setattr(_lower, "_compile_package", rec)
    with pytest.raises(ValueError, match="unsupported operator"):
        _lower._lower(object(), "out.pt2", dict(INDUCTOR_CONFIGS))
    assert rec.levels == [("O1", True)]
    assert not raw_output_views_active()


def test_options_the_installed_inductor_lacks_are_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """An option of a newer torch (as ``realize_cpu_opcount_threshold`` is to torch 2.11) never
    reaches Inductor, which would reject it; the options it knows pass unchanged."""
    configs = {**_lower.derivative_configs(), "no_such_inductor_option": 3}
    assert _lower.known_inductor_configs(configs) == _lower.derivative_configs()
    seen: list[dict[str, Any]] = []

    def compile_and_package(program: Any, package_path: str, inductor_configs: Any) -> str:
        seen.append(inductor_configs)
        return package_path

    monkeypatch.setattr(torch._inductor, "aoti_compile_and_package", compile_and_package)
    program = torch.export.export(torch.nn.Identity(), (torch.ones(2, 3),))
    assert _lower._compile_package(program, "out.pt2", configs) == "out.pt2"
    (options,) = seen
    assert {k: options[k] for k in _lower.derivative_configs()} == _lower.derivative_configs()
    assert "no_such_inductor_option" not in options
    signature = json.loads(options["aot_inductor.metadata"]["neml2_signature"])
    spec = {"dtype": "float32", "device": "cpu", "shape": [2, 3]}
    assert signature == {"inputs": [spec], "outputs": [spec]}
