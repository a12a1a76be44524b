"""``neml2-syntax``: the catalog of registered types and their options, as JSON.

``--server`` answers line-JSON requests on stdin, one response line each:
``{"id": 1, "method": "list_sections"}`` → ``{"id": 1, "result": [...]}``;
``list_types`` (optional ``section``), ``get_options`` (``type``, optional ``section``); parameters
go at the top level or under ``"params"``. Bad JSON → ``{"id": null, "error": "parse error"}``,
an unknown method → ``"unknown method"``, a bad request → ``"invalid request"`` /
``"invalid params"``; ``"detail"`` explains.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from neml2._registry import registry
from neml2.cli._common import add_load, apply_loads, new_parser, run_tool
from neml2.cli._syntax import option_records, records
from neml2.outputs import atomic_output

__all__ = ["handle_request", "main", "parser", "serve"]

_EPILOG = """\
Records (sorted by type): {type, section, doc, source_path, class_name, options: [{name, doc,
ftype, required, type, value}]} (no options with --summary).

--server reads one JSON request per line from stdin and writes one JSON response per line:
  {"id": 1, "method": "list_sections"}
  {"id": 2, "method": "list_types", "section": "Models"}
  {"id": 3, "method": "get_options", "type": "Newton"}
Responses: {"id", "result"} or {"id", "error", "detail"}. --server takes no other flag but --load."""


def parser() -> argparse.ArgumentParser:
    """The ``neml2-syntax`` argument parser."""
    p = new_parser("neml2-syntax", "List every registered type and its options.", _EPILOG)
    p.add_argument(
        "--json",
        metavar="FILE",
        default=None,
        help="output file ('-' = stdout; default syntax.json)",
    )
    p.add_argument("--section", help="only types of this section (Models, Solvers, ...)")
    p.add_argument("--type", help="only this type")
    p.add_argument("--summary", action="store_true", help="omit the options")
    p.add_argument("--server", action="store_true", help="answer line-JSON requests on stdin")
    add_load(p)
    return p


def _error(rid: Any, code: str, detail: str) -> dict[str, Any]:
    return {"id": rid, "error": code, "detail": detail}


def handle_request(line: str) -> dict[str, Any]:
    """The response to one request line."""
    try:
        req = json.loads(line)
    except json.JSONDecodeError as e:
        return _error(None, "parse error", f"invalid JSON: {e}")
    if not isinstance(req, dict):
        return _error(None, "invalid request", f"expected a JSON object, got {type(req).__name__}")
    rid = req.get("id")
    method = req.get("method")
    params = req.get("params", {})
    if not isinstance(params, dict):
        return _error(rid, "invalid params", "'params' must be a JSON object")
    params = {**{k: v for k, v in req.items() if k not in ("id", "method", "params")}, **params}
    if method == "list_sections":
        return {"id": rid, "result": registry.sections()}
    if method == "list_types":
        section = params.get("section")
        if section is None:
            return {"id": rid, "result": sorted({n for _, n, _ in registry.items()})}
        if section not in registry.sections():
            return _error(rid, "invalid params", f"unknown section '{section}'")
        return {"id": rid, "result": sorted(registry.types(section))}
    if method == "get_options":
        tname = params.get("type")
        if not isinstance(tname, str):
            return _error(rid, "invalid params", "get_options needs a string 'type'")
        section = params.get("section")
        found = [c for s, n, c in registry.items() if n == tname and section in (None, s)]
        if not found:
            return _error(rid, "invalid params", f"unknown type '{tname}'")
        return {"id": rid, "result": option_records(found[0])}
    return _error(
        rid,
        "unknown method",
        f"unknown method {method!r} (methods: list_sections, list_types, get_options)",
    )


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer requests until end of input."""
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(json.dumps(handle_request(line)) + "\n")
        stdout.flush()
    return 0


def run(args: argparse.Namespace, extra: list[str]) -> int:
    """Dump the records or serve requests."""
    if extra:
        raise ValueError(f"unrecognised argument(s): {' '.join(extra)}")
    apply_loads(args.load)
    if args.server:
        others = [f"--{k}" for k in ("section", "type") if getattr(args, k) is not None]
        others += ["--summary"] if args.summary else []
        others += ["--json"] if args.json is not None else []
        if others:
            raise ValueError(f"--server cannot be combined with {', '.join(others)}")
        return serve(sys.stdin, sys.stdout)
    text = json.dumps(records(args.section, args.type, summary=args.summary), indent=2)
    out = args.json or "syntax.json"
    if out == "-":
        print(text)
    else:
        with atomic_output(out) as fh:
            fh.write(text + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``neml2-syntax``."""
    return run_tool(parser, run, argv)


if __name__ == "__main__":
    sys.exit(main())
