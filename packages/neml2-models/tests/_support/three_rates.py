"""The three-rates model: three ``ScalarVariableRate`` leaves that all compute ``(v - v~1)/(t - t~1)``.

Traced and optimized, the shared ``t - t~1`` must be computed once (common-subexpression
elimination); the jit tests and the ``neml2-inspect --graph`` test count it.
"""

from __future__ import annotations

import re

THREE_RATES_INPUT = """
[Models]
  [eq1]
    type = ScalarVariableRate
    variable = 'a'
  []
  [eq2]
    type = ScalarVariableRate
    variable = 'b'
  []
  [eq3]
    type = ScalarVariableRate
    variable = 'c'
  []
  [eq]
    type = ComposedModel
    models = 'eq1 eq2 eq3'
  []
[]
"""

_NODE = re.compile(r"^\s*(%\S+) : \S+ = ([\w:]+)(?:\[.*\])?\((.*)\)$")
#: the traced graph's inputs, in the summary's (sorted) order
THREE_RATES_GRAPH_INPUTS = ["a", "a~1", "b", "b~1", "c", "c~1", "t", "t~1"]


def torchscript_ops(text: str) -> list[tuple[str, str, list[str]]]:
    """``(result, op, operands)`` of a printed TorchScript graph, seen through ``prim::profile``."""
    alias: dict[str, str] = {}
    ops = []
    for line in text.splitlines():
        m = _NODE.match(line.split(" # ")[0].rstrip())
        if m is None:
            continue
        out, op = m.group(1), m.group(2)
        args = [alias.get(a.strip(), a.strip()) for a in m.group(3).split(",") if a.strip()]
        if op == "prim::profile":
            alias[out] = args[0]
        else:
            ops.append((out, op, args))
    return ops


def check_three_rates_torchscript(text: str, *, profiling: bool) -> None:
    """The three-rates traced graph: named inputs, ``t - t~1`` once, reused by the three divisions."""
    head = "graph(" + ",\n      ".join(f"%eq::{n} : Tensor" for n in THREE_RATES_GRAPH_INPUTS)
    assert text.startswith(head + "):\n"), text
    assert ("prim::profile" in text) == profiling, text
    ops = torchscript_ops(text)
    dt = [o for o, op, a in ops if op == "aten::sub" and a[:2] == ["%eq::t", "%eq::t~1"]]
    assert len(dt) == 1, text
    divs = [a for _, op, a in ops if op == "aten::div"]
    assert len(divs) == 3 and all(a[1] == dt[0] for a in divs), text
    assert sum(op == "aten::sub" for _, op, _ in ops) == 4, text
