"""neml2.log: env parsing, precedence, line format, streams and sink."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from neml2 import log


@pytest.fixture(autouse=True)
def clean_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(log.ENV_VAR, raising=False)
    log.reset()
    yield
    monkeypatch.delenv(log.ENV_VAR, raising=False)
    log.reset()


def _set_env(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(log.ENV_VAR, value)
    log.reload()


def test_builtin_default_is_warning() -> None:
    for chan in log.CHANNELS:
        assert log.effective_level(chan) == log.WARNING
        assert log.enabled(chan, log.WARNING)
        assert not log.enabled(chan, log.INFO)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("silent", log.SILENT), ("off", log.SILENT), ("none", log.SILENT), ("0", log.SILENT),
        ("warning", log.WARNING), ("warn", log.WARNING), ("1", log.WARNING),
        ("info", log.INFO), ("2", log.INFO), ("debug", log.DEBUG), ("3", log.DEBUG),
        (" DeBuG ", log.DEBUG),
    ],
)  # fmt: skip
def test_level_aliases(monkeypatch: pytest.MonkeyPatch, text: str, level: int) -> None:
    _set_env(monkeypatch, f"linear={text}")
    assert log.effective_level("linear") == level
    assert log.effective_level("newton") == log.WARNING


def test_env_wildcard_and_specific_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    _set_env(monkeypatch, "newton=debug, all=info,driver=off")
    assert log.effective_level("newton") == log.DEBUG
    assert log.effective_level("driver") == log.SILENT
    assert log.effective_level("model") == log.INFO
    # order inside the variable does not matter
    _set_env(monkeypatch, "all=silent,newton=info")
    assert log.effective_level("newton") == log.INFO
    assert log.effective_level("tensor") == log.SILENT


def test_precedence_env_over_api_over_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    log.set_default_level("all", "info")
    log.set_default_level("model", "debug")
    assert log.effective_level("model") == log.DEBUG
    assert log.effective_level("linear") == log.INFO
    _set_env(monkeypatch, "all=warn")
    assert log.effective_level("model") == log.WARNING  # env 'all' beats api specific
    _set_env(monkeypatch, "linear=silent")
    assert log.effective_level("linear") == log.SILENT
    assert log.effective_level("model") == log.DEBUG
    assert log.effective_level("driver") == log.INFO


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("bogus=info", "unknown channel 'bogus'"),
        ("newton=loud", "unknown level 'loud' in NEML2_LOGS entry 'newton=loud'"),
        ("newton", "must read 'channel=level'"),
    ],
)
def test_env_errors_name_the_entry(
    monkeypatch: pytest.MonkeyPatch, value: str, fragment: str
) -> None:
    monkeypatch.setenv(log.ENV_VAR, value)
    with pytest.raises(ValueError) as exc:
        log.reload()
    assert fragment in str(exc.value)
    monkeypatch.delenv(log.ENV_VAR)


def test_api_errors() -> None:
    with pytest.raises(ValueError, match="unknown channel 'nope'"):
        log.set_default_level("nope", "info")
    with pytest.raises(ValueError, match="out of range"):
        log.set_default_level("newton", 7)
    with pytest.raises(ValueError, match="unknown channel 'all'"):
        log.enabled("all", log.INFO)


def test_line_format_and_default_streams(capsys: pytest.CaptureFixture[str]) -> None:
    log.set_default_level("all", "debug")
    log.emit("newton", log.INFO, "hello")
    log.emit("linear", "warn", "careful")
    log.emit("driver", log.DEBUG, "two\nlines")
    out, err = capsys.readouterr()
    assert out == "[neml2:newton ][info] hello\n"
    assert err == (
        "[neml2:linear ][warn] careful\n[neml2:driver ][dbg ] two\n[neml2:driver ][dbg ] lines\n"
    )


def test_disabled_levels_are_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    log.emit("model", log.INFO, "invisible")
    log.emit("model", log.DEBUG, "invisible")
    assert capsys.readouterr() == ("", "")
    with pytest.raises(ValueError, match="silent"):
        log.emit("model", log.SILENT, "x")


def test_set_stream_and_streams() -> None:
    log.set_default_level("all", "debug")
    both = io.StringIO()
    log.set_stream(both)
    log.emit("tensor", log.INFO, "a")
    log.emit("tensor", log.WARNING, "b")
    assert both.getvalue() == "[neml2:tensor ][info] a\n[neml2:tensor ][warn] b\n"
    out, err = io.StringIO(), io.StringIO()
    log.set_streams(out, err)
    log.emit("substep", log.INFO, "i")
    log.emit("substep", log.DEBUG, "d")
    assert out.getvalue() == "[neml2:substep][info] i\n"
    assert err.getvalue() == "[neml2:substep][dbg ] d\n"


def test_sink_and_reset_sink(capsys: pytest.CaptureFixture[str]) -> None:
    got: list[tuple[int, str]] = []
    log.set_sink(lambda level, line: got.append((level, line)))
    log.emit("driver", log.WARNING, "saved")
    assert got == [(log.WARNING, "[neml2:driver ][warn] saved")]
    assert capsys.readouterr() == ("", "")
    log.reset_sink()
    log.emit("driver", log.WARNING, "again")
    assert capsys.readouterr().err == "[neml2:driver ][warn] again\n"
    assert len(got) == 1
