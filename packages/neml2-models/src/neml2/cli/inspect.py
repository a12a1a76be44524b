"""``neml2-inspect``: print a model's inputs, outputs, parameters and buffers."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from neml2.cli._common import (
    add_load,
    add_python_switch,
    allow_python,
    apply_loads,
    error,
    guarded,
    message,
    new_parser,
)

__all__ = ["describe", "format_text", "main", "parser"]

_EPILOG = """\
Any other token is a HIT override (e.g. Models/m/E:=2e5).

Text output:
  Model: <Python class name>
  <blank>  Inputs (N):      then '  <name>: type=<T>[, sub_batch=[...]]' per variable
  <blank>  Outputs (N):     same
  <blank>  Parameters (N):  '  <name>: dtype=..., device=..., shape=[...]'
  <blank>  Buffers (N):     same
--graph compiles the model with py-jit (neml2.compile), evaluates it once on sample inputs and
prints the optimized graph (with --json: adds "graph").
--json prints one line {"name", "inputs", "outputs", "parameters", "buffers", "retcode": 0};
on failure {"retcode": 1, "error": ...} on stdout, 'Error: ...' on stderr, exit status 1."""


def parser() -> argparse.ArgumentParser:
    """The ``neml2-inspect`` argument parser."""
    p = new_parser("neml2-inspect", "Describe a model ([Models] block) of an input file.", _EPILOG)
    p.add_argument("input", metavar="INPUT", help="HIT input file")
    p.add_argument("model", metavar="MODEL", help="name of the [Models] block")
    p.add_argument("--json", action="store_true", help="print one line of JSON instead of text")
    p.add_argument(
        "--graph", action="store_true", help="print the optimized py-jit graph (see below)"
    )
    add_load(p)
    add_python_switch(p)
    return p


def _variables(spec: dict[str, Any], settings: Any) -> list[dict[str, Any]]:
    out = []
    for name, cls in spec.items():
        rec: dict[str, Any] = {"name": name, "type": cls.__name__}
        sub = settings.sub_batch_shape(name) if settings is not None else None
        if sub is not None:
            rec["sub_batch"] = list(sub)
        out.append(rec)
    return out


def _tensors(items: Any) -> list[dict[str, Any]]:
    return [
        {"name": n, "dtype": str(t.dtype), "device": str(t.device), "shape": list(t.shape)}
        for n, t in items
    ]


def describe(model: Any, settings: Any = None) -> dict[str, Any]:
    """The inspection record of ``model`` (sub-batch declarations from ``settings``)."""
    return {
        "name": type(model).__name__,
        "inputs": _variables(model.input_spec, settings),
        "outputs": _variables(model.output_spec, settings),
        "parameters": _tensors(model.named_parameters()),
        "buffers": _tensors(model.named_buffers()),
    }


def format_text(rec: dict[str, Any]) -> str:
    """Human-readable form of :func:`describe`'s record."""
    lines = [f"Model: {rec['name']}"]
    for title, key in (("Inputs", "inputs"), ("Outputs", "outputs")):
        lines += ["", f"{title} ({len(rec[key])}):"]
        for v in rec[key]:
            sub = f", sub_batch={v['sub_batch']}" if "sub_batch" in v else ""
            lines.append(f"  {v['name']}: type={v['type']}{sub}")
    for title, key in (("Parameters", "parameters"), ("Buffers", "buffers")):
        lines += ["", f"{title} ({len(rec[key])}):"]
        for t in rec[key]:
            lines.append(
                f"  {t['name']}: dtype={t['dtype']}, device={t['device']}, shape={t['shape']}"
            )
    return "\n".join(lines)


def _print(text: str) -> int:
    print(text)
    return 0


def _report(args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    """The record :func:`describe` gives for ``args.model`` (plus its graphs with ``--graph``)."""
    from neml2.factory import load_input

    apply_loads(args.load)
    factory = load_input(args.input, additional_args=extra, allow_python=allow_python(args))
    model = factory.get_model(args.model)
    rec = describe(model, factory.settings)
    if args.graph:
        from neml2.jit._inspect import sample_graphs

        rec["graph"] = sample_graphs(model)
    return rec


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``neml2-inspect``.

    Output goes through :func:`~neml2.cli._common.guarded`, so a reader that leaves early
    (``neml2-inspect ... | head``) ends the tool quietly with status 141.
    """
    args, extra = parser().parse_known_args(sys.argv[1:] if argv is None else list(argv))
    try:
        rec = _report(args, extra)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:
        why = message(e)
        if args.json:
            guarded(lambda: _print(json.dumps({"retcode": 1, "error": why})))
        return error(why)
    if args.json:
        return guarded(lambda: _print(json.dumps({**rec, "retcode": 0})))
    return guarded(lambda: _print(rec["graph"] if args.graph else format_text(rec)))


if __name__ == "__main__":
    sys.exit(main())
