"""Shared plumbing of the neml2 command-line tools.

Every tool parses with ``parse_known_args``: unrecognised tokens are HIT overrides
(``Models/m/E:=2e5``). ``--load`` (repeatable) imports user code first. Failures print one
``Error: <message>`` to stderr and exit with status 1. neml2's own warnings about the input
(:class:`~neml2.factory.InputWarning`) print as one ``Warning: <message>`` line each.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

import torch

from neml2._registry import load_module

__all__ = [
    "add_load",
    "add_python_switch",
    "allow_python",
    "apply_loads",
    "error",
    "guarded",
    "message",
    "new_parser",
    "parse_device",
    "run_tool",
    "torch_defaults",
]

_DEVICE = re.compile(r"^(cpu|cuda|xpu|hip|mps)(:\d+)?$")


def new_parser(prog: str, description: str, epilog: str = "") -> argparse.ArgumentParser:
    """An argument parser with the common help layout."""
    return argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_load(parser: argparse.ArgumentParser) -> None:
    """The repeatable ``--load PATH`` option."""
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        metavar="PATH",
        help="import a .py file, a package directory or a dotted module first (repeatable); "
        "its @register_neml2_object types become available",
    )


def add_python_switch(parser: argparse.ArgumentParser) -> None:
    """The ``--no-python-tensors`` switch (refuse ``[Tensors] type = Python`` blocks)."""
    parser.add_argument(
        "--no-python-tensors",
        action="store_true",
        help="refuse [Tensors] blocks of type Python (they run code from the input file); "
        "also NEML2_ALLOW_PYTHON_TENSORS=0",
    )


def allow_python(args: argparse.Namespace) -> bool | None:
    """``load_input``'s ``allow_python`` for the parsed switch (``None``: the environment's)."""
    return False if getattr(args, "no_python_tensors", False) else None


def apply_loads(paths: Sequence[str]) -> None:
    """Import every ``--load`` target."""
    for p in paths:
        load_module(p)


def parse_device(text: str) -> torch.device:
    """``cpu|cuda|xpu|hip|mps[:index]``."""
    if not _DEVICE.match(text):
        raise ValueError(f"--device {text!r}: expected cpu, cuda, xpu, hip or mps, optionally ':N'")
    return torch.device(text)


def error(message: str) -> int:
    """Print ``Error: message`` on stderr; return exit status 1."""
    print(f"Error: {message}", file=sys.stderr)
    return 1


def message(e: BaseException) -> str:
    """Plain text of an exception (``KeyError`` without the repr quotes)."""
    if isinstance(e, KeyError) and len(e.args) == 1 and isinstance(e.args[0], str):
        return e.args[0]
    text = str(e)
    return text if text else type(e).__name__


def guarded(fn: Callable[[], int]) -> int:
    """Run ``fn``; report any exception as ``Error: …`` and return 1.

    A closed standard output (``neml2-syntax --json - | head``) ends the tool quietly with
    status 141 (128 + SIGPIPE), as a command killed by SIGPIPE ends.
    """
    try:
        return fn()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BrokenPipeError:
        # nothing more can reach the reader; point stdout at /dev/null so that the interpreter's
        # final flush does not raise again
        with contextlib.suppress(OSError, ValueError):  # a stdout without a descriptor
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 128 + signal.SIGPIPE
    except Exception as e:
        return error(message(e))


def run_tool(
    make_parser: Callable[[], argparse.ArgumentParser],
    run: Callable[[argparse.Namespace, list[str]], int],
    argv: Sequence[str] | None,
) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``; unknown tokens are HIT overrides) and
    :func:`guarded` ``run(args, overrides)``."""
    args, extra = make_parser().parse_known_args(sys.argv[1:] if argv is None else list(argv))
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return guarded(lambda: run(args, extra))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """``Warning: <message>`` for warnings about the input; Python's format for the rest."""
    from neml2.factory import InputWarning

    if issubclass(category, InputWarning):
        print(f"Warning: {message}", file=file or sys.stderr)
    else:
        (file or sys.stderr).write(
            warnings.formatwarning(message, category, filename, lineno, line)
        )


@contextlib.contextmanager
def torch_defaults(dtype: torch.dtype, device: torch.device) -> Iterator[None]:
    """Set torch's default dtype (and a non-CPU default device) for one tool run; restore after.

    CPU is torch's built-in default, so no device mode (which intercepts every op) is installed.
    """
    old_dtype = torch.get_default_dtype()
    old_device = torch.get_default_device()
    torch.set_default_dtype(dtype)
    if device.type != "cpu":
        torch.set_default_device(device)
    try:
        yield
    finally:
        torch.set_default_dtype(old_dtype)
        if device.type != "cpu":
            torch.set_default_device(None if old_device.type == "cpu" else old_device)
