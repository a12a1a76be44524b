"""Channel-based logging, configured by ``NEML2_LOGS`` (modelled on ``TORCH_LOGS``).

Channels: ``newton, linear, substep, model, tensor, driver`` (wildcard ``all``).
Levels: ``silent < warning < info < debug`` (aliases ``off``/``none``, ``warn``,
``0..3``); the built-in level is ``warning``. A channel's effective level is, first
match wins: ``NEML2_LOGS`` entry for the channel, ``NEML2_LOGS`` ``all``,
:func:`set_default_level` for the channel, :func:`set_default_level` ``all``, built-in.

Lines read ``[neml2:<channel padded to 7>][<warn|info|dbg >] message``; info goes to
stdout, warning and debug to stderr, unless redirected with :func:`set_stream`,
:func:`set_streams` or :func:`set_sink`. :func:`enabled` is one dict lookup, cheap
enough for hot loops.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

CHANNELS: tuple[str, ...] = ("newton", "linear", "substep", "model", "tensor", "driver")
SILENT = 0
WARNING = 1
INFO = 2
DEBUG = 3
ENV_VAR = "NEML2_LOGS"

_LEVEL_ALIASES: dict[str, int] = {
    "silent": SILENT, "off": SILENT, "none": SILENT, "0": SILENT,
    "warning": WARNING, "warn": WARNING, "1": WARNING,
    "info": INFO, "2": INFO,
    "debug": DEBUG, "3": DEBUG,
}  # fmt: skip
_TAGS = {WARNING: "warn", INFO: "info", DEBUG: "dbg "}
_BUILTIN = WARNING

Sink = Callable[[int, str], None]

_env: dict[str, int] = {}
_api: dict[str, int] = {}
_effective: dict[str, int] = dict.fromkeys(CHANNELS, _BUILTIN)
_out: TextIO | None = None
_err: TextIO | None = None
_sink: Sink | None = None


def parse_level(level: int | str, *, where: str = "argument 'level'") -> int:
    """Level number of ``level`` (an int 0..3 or a name/alias, case-insensitive)."""
    if isinstance(level, bool) or not isinstance(level, (int, str)):
        raise TypeError(f"neml2.log: level in {where} must be an int or a string, got {level!r}")
    if isinstance(level, int):
        if SILENT <= level <= DEBUG:
            return level
        raise ValueError(f"neml2.log: level {level} in {where} out of range 0..3")
    key = level.strip().lower()
    if key not in _LEVEL_ALIASES:
        raise ValueError(
            f"neml2.log: unknown level {level!r} in {where}; use one of silent, warning, info, debug "
            "(aliases off, none, warn, 0..3)"
        )
    return _LEVEL_ALIASES[key]


def _check_channel(chan: str, *, allow_all: bool, where: str) -> str:
    key = chan.strip().lower()
    if key in CHANNELS or (allow_all and key == "all"):
        return key
    raise ValueError(
        f"neml2.log: unknown channel {chan!r} in {where}; channels are "
        f"{', '.join(CHANNELS)}" + (" (or 'all')" if allow_all else "")
    )


def parse_spec(spec: str) -> dict[str, int]:
    """Parse a ``NEML2_LOGS`` value ``"chan=level,..."`` into ``{channel or 'all': level}``."""
    out: dict[str, int] = {}
    for raw in spec.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if "=" not in entry:
            raise ValueError(
                f"neml2.log: {ENV_VAR} entry {entry!r} must read 'channel=level' "
                f"(full value {spec!r})"
            )
        chan, lvl = entry.split("=", 1)
        where = f"{ENV_VAR} entry {entry!r}"
        out[_check_channel(chan, allow_all=True, where=where)] = parse_level(lvl, where=where)
    return out


def _recompute() -> None:
    for chan in CHANNELS:
        for source in (_env.get(chan), _env.get("all"), _api.get(chan), _api.get("all")):
            if source is not None:
                _effective[chan] = source
                break
        else:
            _effective[chan] = _BUILTIN


def reload() -> None:
    """Re-read ``NEML2_LOGS`` (``set_default_level`` choices are kept)."""
    _env.clear()
    _env.update(parse_spec(os.environ.get(ENV_VAR, "")))
    _recompute()


def set_default_level(chan: str, level: int | str) -> None:
    """Set the programmatic default of a channel (or ``'all'``); ``NEML2_LOGS`` still wins."""
    key = _check_channel(chan, allow_all=True, where="set_default_level")
    _api[key] = parse_level(level)
    _recompute()


def effective_level(chan: str) -> int:
    """Effective level of a channel."""
    try:
        return _effective[chan]
    except KeyError:
        _check_channel(chan, allow_all=False, where="effective_level")
        raise


def enabled(chan: str, level: int) -> bool:
    """Whether a message of ``level`` on ``chan`` would be emitted (a dict lookup)."""
    try:
        return _effective[chan] >= level
    except KeyError:
        _check_channel(chan, allow_all=False, where="enabled")
        raise


def format_line(chan: str, level: int, msg: str) -> str:
    """``[neml2:<chan:7>][<tag>] msg``."""
    return f"[neml2:{chan:<7}][{_TAGS[level]}] {msg}"


def emit(chan: str, level: int | str, msg: str) -> None:
    """Emit ``msg`` (each of its lines) on ``chan`` if the channel's level allows it."""
    lvl = level if isinstance(level, int) else parse_level(level)
    if lvl == SILENT:
        raise ValueError("neml2.log.emit: messages cannot be emitted at level 'silent'")
    if not enabled(chan, lvl):
        return
    for part in msg.split("\n"):
        line = format_line(chan, lvl, part)
        if _sink is not None:
            _sink(lvl, line)
            continue
        stream = (_out or sys.stdout) if lvl == INFO else (_err or sys.stderr)
        stream.write(line + "\n")
        stream.flush()


def set_stream(stream: TextIO | None) -> None:
    """Send every level to ``stream`` (``None`` restores stdout/stderr)."""
    set_streams(stream, stream)


def set_streams(out: TextIO | None, err: TextIO | None) -> None:
    """Info to ``out``, warning/debug to ``err`` (``None`` = the current sys stream)."""
    global _out, _err
    _out, _err = out, err


def set_sink(fn: Sink) -> None:
    """Route every emitted line to ``fn(level, line)`` instead of the streams."""
    global _sink
    _sink = fn


def reset_sink() -> None:
    """Stop routing lines to the sink; streams are used again."""
    global _sink
    _sink = None


def reset() -> None:
    """Forget ``set_default_level`` choices, streams and sink; re-read ``NEML2_LOGS``."""
    _api.clear()
    set_streams(None, None)
    reset_sink()
    reload()


reload()
