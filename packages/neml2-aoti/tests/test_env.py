"""NEML2_CAPTURE_SOLVE_FAILURE truthiness as parsed by libneml2.so."""

from __future__ import annotations

import pytest

from neml2.aoti import capture_solve_failure, env_truthy

FALSY: list[str | None] = [None, "", "0", "false", "FALSE", "No", "off", " off ", "\tfalse\n", "  "]
TRUTHY: list[str | None] = ["1", "true", "yes", "on", "ON", "2", "anything", " 1 ", "0.0", "nope"]


def _reference(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in {"", "0", "false", "no", "off"}


@pytest.mark.parametrize("value", FALSY + TRUTHY)
def test_env_truthy(value: str | None) -> None:
    assert env_truthy(value) is _reference(value)
    assert env_truthy(value) is (value in TRUTHY)


@pytest.mark.parametrize("value", ["yes", "0", "Off", "true"])
def test_capture_solve_failure_reads_environment(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("NEML2_CAPTURE_SOLVE_FAILURE", value)
    assert capture_solve_failure() is _reference(value)


def test_capture_solve_failure_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEML2_CAPTURE_SOLVE_FAILURE", raising=False)
    assert capture_solve_failure() is False
