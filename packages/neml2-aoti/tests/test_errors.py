"""Exception translation of neml2.aoti._aoti and the one-ConvergenceError rule."""

from __future__ import annotations

import importlib
import importlib.util

import pytest
import torch

import neml2.aoti
from neml2.aoti import ConvergenceError, FatalError, _aoti, _errors, _local_errors


def test_classes_are_runtime_errors() -> None:
    assert issubclass(ConvergenceError, RuntimeError)
    assert issubclass(FatalError, RuntimeError)
    assert not issubclass(FatalError, ConvergenceError)
    assert _aoti.ConvergenceError is ConvergenceError
    assert _aoti.FatalError is FatalError


def test_one_convergence_error_class() -> None:
    """neml2.solvers' class is adopted when it exists, else the local fallback is used."""
    solvers = None
    if importlib.util.find_spec("neml2.solvers") is not None:
        solvers = importlib.import_module("neml2.solvers")
    expected = getattr(solvers, "ConvergenceError", None) or _local_errors.ConvergenceError
    assert neml2.aoti.ConvergenceError is expected
    assert _errors._adopt_solvers_class() in {None, expected}


def test_fallback_when_solvers_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> object:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr("neml2.aoti._errors.importlib.import_module", missing)
    assert _errors._adopt_solvers_class() is None


def test_broken_dependency_of_solvers_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> object:
        raise ModuleNotFoundError("No module named 'scipy'", name="scipy")

    monkeypatch.setattr("neml2.aoti._errors.importlib.import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="scipy"):
        _errors._adopt_solvers_class()


def test_solvers_without_class_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = type(importlib)("neml2.solvers")
    fake.__file__ = "/somewhere/neml2/solvers/__init__.py"
    monkeypatch.setattr("neml2.aoti._errors.importlib.import_module", lambda name: fake)
    with pytest.raises(ImportError, match=r"neml2\.solvers .* ConvergenceError"):
        _errors._adopt_solvers_class()


def test_adopts_solvers_class(monkeypatch: pytest.MonkeyPatch) -> None:
    class Custom(RuntimeError):
        pass

    fake = type(importlib)("neml2.solvers")
    fake.ConvergenceError = Custom  # type: ignore[attr-defined]
    monkeypatch.setattr("neml2.aoti._errors.importlib.import_module", lambda name: fake)
    assert _errors._adopt_solvers_class() is Custom


def test_fatal_translation() -> None:
    with pytest.raises(FatalError, match=r"^bad artifact$"):
        _aoti._throw("fatal", "bad artifact")


def test_convergence_translation_without_data() -> None:
    with pytest.raises(ConvergenceError, match="Newton failed") as info:
        _aoti._throw("convergence", "Newton failed")
    assert getattr(info.value, "converged_mask", None) is None


def test_convergence_translation_carries_failure_data() -> None:
    mask = torch.tensor([True, False, True])
    unknowns = torch.arange(6.0).reshape(3, 2)
    with pytest.raises(ConvergenceError) as info:
        _aoti._throw("convergence", "diverged", mask, unknowns)
    assert torch.equal(info.value.converged_mask, mask)  # type: ignore[attr-defined]
    assert torch.equal(info.value.unknowns, unknowns)  # type: ignore[attr-defined]


def test_recoverable_aggregate_is_convergence_error() -> None:
    with pytest.raises(ConvergenceError, match=r"2 asynchronous chunk\(s\) failed"):
        _aoti._throw("aggregate", "chunk diverged")


def test_foreign_exception_becomes_fatal_with_op_name() -> None:
    with pytest.raises(FatalError, match=r"^_throw: index 7$"):
        _aoti._throw("foreign", "index 7")


def test_unknown_kind_is_fatal() -> None:
    with pytest.raises(FatalError, match="unknown kind 'nope'"):
        _aoti._throw("nope", "x")
