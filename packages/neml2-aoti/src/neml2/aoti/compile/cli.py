"""``neml2-compile``: compile a model into an AOTInductor artifact (ARTIFACT.md).

``neml2-compile INPUT.i (--model NAME | --driver NAME) [options] [HIT overrides]``; unknown
trailing tokens are HIT overrides (``Models/m/E:=1``). Errors print one ``Error: …`` line and
exit 1. The ``neml2-compile`` script starts in :func:`neml2.aoti._extras.neml2_compile`, which
checks the ``[compile]`` extra before this package is imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

__all__ = ["main", "make_parser"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Argument errors become one ``Error:`` line and exit status 1 (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def make_parser() -> argparse.ArgumentParser:
    """The ``neml2-compile`` argument parser."""
    p = _Parser(
        prog="neml2-compile",
        description="Compile a neml2 model into an AOTInductor artifact (metadata.json + .pt2 "
        "graphs + a HIT stub). Trailing unrecognized tokens are HIT overrides.",
    )
    p.add_argument("input", metavar="INPUT.i", help="input file")
    p.add_argument("--model", metavar="NAME", help="compile [Models/NAME]")
    p.add_argument("--driver", metavar="NAME", help="compile the model of [Drivers/NAME]")
    p.add_argument("--output-dir", default="aoti", help="output folder (default ./aoti)")
    p.add_argument("--device", nargs="+", default=["cpu"], help="devices, one leaf each")
    p.add_argument("--dtype", default="float64", help="float64 (default) or float32")
    p.add_argument("-j", "--jobs", dest="jobs", type=int, default=1, metavar="N",
                   help="parallel lowering processes")  # fmt: skip
    p.add_argument("-i", "--interactive", action="store_true",
                   help="NEML2 v3's option wizard: not available (the error says what to use)")  # fmt: skip
    p.add_argument("--no-stub", action="store_true", help="do not write <name>_aoti.i")
    p.add_argument("-p", "--parameter", dest="promote", action="append", default=[],
                   metavar="NAME", help="promote a parameter to a graph input (repeatable)")  # fmt: skip
    p.add_argument("-d", "--derivative", dest="derivatives", action="append", default=[],
                   metavar="OUT:IN", help="compile d OUT / d IN (empty side: all; repeatable)")  # fmt: skip
    p.add_argument("--example-batch-shape", action="append", default=None, metavar="SPEC",
                   help="'(2,)' or repeated name='(dyn;sub)'")  # fmt: skip
    p.add_argument("--dynamic-batch", action=argparse.BooleanOptionalAction, default=None,
                   help="dynamic batch axis (default: [Settings]/dynamic_batch, else on)")  # fmt: skip
    p.add_argument("--rename-input", action="append", default=[], metavar="OLD:NEW")
    p.add_argument("--rename-output", action="append", default=[], metavar="OLD:NEW")
    p.add_argument("--rename-parameter", action="append", default=[], metavar="OLD:NEW")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument("--load", action="append", default=[], metavar="PATH",
                   help="import user extensions first (repeatable)")  # fmt: skip
    p.add_argument("--no-python-tensors", action="store_true",
                   help="refuse [Tensors] blocks of type Python (they run code from the input "
                        "file); also NEML2_ALLOW_PYTHON_TENSORS=0")  # fmt: skip
    p.add_argument("--no-cache", action="store_true", help="ignore the compile cache")
    p.add_argument("--no-scalarize", action="store_true",
                   help="lower the Newton graphs of implicit segments as exported (no "
                        "component-by-component re-export)")  # fmt: skip
    p.add_argument("--plan", action="store_true",
                   help="write metadata and stub and list the graphs to export, without "
                        "compiling them (export then drops a predictor that only copies its "
                        "inputs and a Jacobian graph whose blocks are all constants)")  # fmt: skip
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``neml2-compile``; returns the exit status."""
    parser = make_parser()
    try:
        args, extra = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    except _UsageError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    bad = [t for t in extra if t.startswith("-")]
    if bad:
        print(f"Error: unrecognized option {bad[0]}", file=sys.stderr)
        return 1
    if args.interactive:
        print(
            "Error: -i/--interactive (NEML2 v3's option wizard) is not available: list a model's "
            f"variables and parameters with `neml2-inspect {args.input} MODEL`, then pass "
            "--model NAME or --driver NAME, -p NAME and -d OUT:IN",
            file=sys.stderr,
        )
        return 1
    from neml2.aoti.compile._errors import CompileError

    stack = contextlib.ExitStack()

    try:
        from neml2.aoti.compile._pipeline import compile_model

        if args.no_python_tensors:  # the environment carries it to every load, workers included
            from neml2.tensor_sources.python import ALLOW_ENV_VAR

            stack.enter_context(_environment(ALLOW_ENV_VAR, "0"))
        ebs = args.example_batch_shape
        if ebs is not None and len(ebs) == 1 and "=" not in ebs[0]:
            ebs = ebs[0]
        compile_model(
            args.input, model=args.model, driver=args.driver, output_dir=args.output_dir,
            devices=args.device, dtype=args.dtype, jobs=args.jobs, stub=not args.no_stub,
            promote=args.promote, derivatives=args.derivatives, example_batch_shape=ebs,
            dynamic_batch=args.dynamic_batch, rename_inputs=args.rename_input,
            rename_outputs=args.rename_output, rename_parameters=args.rename_parameter,
            overrides=extra, load=args.load, use_cache=not args.no_cache, plan_only=args.plan,
            progress=None if args.quiet else (lambda s: print(s, flush=True)),
            scalarize_newton=not args.no_scalarize,
        )  # fmt: skip
    except CompileError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    finally:
        stack.close()
    return 0


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``os.environ[name] = value`` for the block (the previous state restored after)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


if __name__ == "__main__":
    sys.exit(main())
