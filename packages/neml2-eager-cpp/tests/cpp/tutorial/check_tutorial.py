"""Run one of the C++ tracing-tutorial programs (v2-style authoring API); check what it prints.

``python check_tutorial.py <summary|tracing|optimization|off> <program>``: the program runs in
this folder (it loads ``input.i``) with tracing on (``NEML2_JIT_TRACE=1``) for ``tracing`` and
``optimization``; ``off`` runs the tracing program with tracing off (the default), which must
fail because nothing was traced.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SUMMARY = """Name: eq
Input: a [Scalar]
a~1 [Scalar]
b [Scalar]
b~1 [Scalar]
c [Scalar]
c~1 [Scalar]
t [Scalar]
t~1 [Scalar]
Output: a_rate [Scalar]
b_rate [Scalar]
c_rate [Scalar]
"""
INPUTS = ["a", "a~1", "b", "b~1", "c", "c~1", "t", "t~1"]
_NODE = re.compile(r"^\s*(%\S+) : \S+ = ([\w:]+)(?:\[.*\])?\((.*)\)$")


def graph_ops(text: str) -> list[tuple[str, str, list[str]]]:
    """``(result, op, operands)`` per node; operands seen through ``prim::profile`` wrappers."""
    alias: dict[str, str] = {}
    ops = []
    for line in text.splitlines():
        m = _NODE.match(line.split(" # ")[0].rstrip())
        if m is None:
            continue
        out, op, args = m.group(1), m.group(2), [a.strip() for a in m.group(3).split(",") if a]
        args = [alias.get(a, a) for a in args]
        if op == "prim::profile":
            alias[out] = args[0]
        else:
            ops.append((out, op, args))
    return ops


def check_graph(text: str, *, profiling: bool) -> None:
    """The three-rates graph: named inputs, ``t - t~1`` once and reused by the three divisions."""
    head = "graph(" + ",\n      ".join(f"%eq::{n} : Tensor" for n in INPUTS) + "):\n"
    assert text.startswith(head), text
    assert ("prim::profile" in text) == profiling, text
    ops = graph_ops(text)
    dt = [o for o, op, a in ops if op == "aten::sub" and a[:2] == ["%eq::t", "%eq::t~1"]]
    assert len(dt) == 1, text  # the common subexpression, computed once
    divs = [a for _, op, a in ops if op == "aten::div"]
    assert len(divs) == 3 and all(a[1] == dt[0] for a in divs), text
    assert sum(op == "aten::sub" for _, op, _ in ops) == 4, text


def main(kind: str, program: str) -> None:
    env = dict(os.environ)
    env.pop("NEML2_JIT_TRACE", None)
    if kind in ("tracing", "optimization"):
        env["NEML2_JIT_TRACE"] = "1"
    here = Path(__file__).resolve().parent
    run = subprocess.run([program], cwd=here, env=env, capture_output=True, text=True, check=False)
    if kind == "off":
        assert run.returncode != 0, run.stdout
        assert "no traced graph has run on this thread" in run.stderr, run.stderr
        return
    assert run.returncode == 0, run.stderr
    if kind == "summary":
        assert run.stdout == SUMMARY, repr(run.stdout)
    else:
        check_graph(run.stdout, profiling=kind == "tracing")
    print(run.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:])
