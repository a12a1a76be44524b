"""Graph capture for py-jit: the Inductor backend that records traced and optimized FX graphs.

Every graph Dynamo hands to the backend is recorded twice: as traced (the Python-level ops, one
``t - t~1`` per ``ScalarVariableRate``) and as optimized (after AOTAutograd lowering to ATen and
common-subexpression elimination, i.e. exactly the graph Inductor then compiles). Placeholders
are shown under the model's variable names (``%t``, ``%t~1``, ``%v[a][__u0]``, ``%<param>``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import fx

__all__ = ["CapturedGraph", "GraphRecorder", "format_graph"]

_ARG = re.compile(r"^L\['args'\]\[(\d+)\]")
_KW = re.compile(r"^L\['(v2|vh|v)'\]((?:\['[^']*'\])*)")
_SEQ = itertools.count()
_PARAM = re.compile(r"_(?:parameters|buffers)\['([^']+)'\]")


@dataclass
class CapturedGraph:
    """One compiled graph: ``traced`` (Dynamo) and ``optimized`` (ATen after CSE) text."""

    traced: str
    optimized: str = ""
    seq: int = field(default_factory=lambda: next(_SEQ))


@dataclass
class GraphRecorder:
    """Per-model list of captured graphs (one per Dynamo compilation, newest last)."""

    input_names: Sequence[str]
    graphs: list[CapturedGraph] = field(default_factory=list)

    def _display(self, node: fx.Node) -> str:
        """Variable name of a Dynamo placeholder from its guard source (else its FX name)."""
        arg = node.meta.get("grapharg")
        src = getattr(getattr(arg, "source", None), "name", None)
        if callable(src):
            src = src()
        if not isinstance(src, str):
            return node.name
        m = _ARG.match(src)
        if m is not None:
            i = int(m.group(1))
            return self.input_names[i] if i < len(self.input_names) else f"arg{i}"
        m = _KW.match(src)
        if m is not None:
            keys = re.findall(r"\['([^']*)'\]", m.group(2))
            return m.group(1) + "".join(f"[{k}]" for k in keys)
        params = _PARAM.findall(src)
        return params[-1] if params else node.name

    def backend(self, config_patches: Mapping[str, Any]) -> Callable[..., Any]:
        """A ``torch.compile`` backend: record, then compile with Inductor (+ our CSE pass)."""
        from torch._functorch.compile_utils import fx_graph_cse
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        def backend(gm: fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
            names = [self._display(n) for n in gm.graph.nodes if n.op == "placeholder"]
            rec = CapturedGraph(format_graph(gm.graph, names))
            self.graphs.append(rec)

            def inner(g: fx.GraphModule, inputs: Sequence[Any], **kwargs: Any) -> Any:
                if not kwargs.get("is_backward", False):
                    g = fx.GraphModule(g, fx_graph_cse(g.graph))
                    ph = [n for n in g.graph.nodes if n.op == "placeholder"]
                    shown = names if len(ph) == len(names) else [n.name for n in ph]
                    rec.optimized = format_graph(g.graph, shown)
                return compile_fx_inner(g, inputs, **kwargs)

            # the AOTAutograd cache would skip ``inner`` (and so the recording) on a warm cache
            with torch._functorch.config.patch(enable_autograd_cache=False):
                return compile_fx(gm, example_inputs, inner_compile=inner,
                                  config_patches=dict(config_patches))  # fmt: skip

        return backend


def _fmt(a: Any, names: Mapping[fx.Node, str]) -> str:
    if isinstance(a, fx.Node):
        return f"%{names.get(a, a.name)}"
    if isinstance(a, (list, tuple)):
        inner = ", ".join(_fmt(x, names) for x in a)
        return f"[{inner}]" if isinstance(a, list) else f"({inner})"
    return repr(a)


def format_graph(graph: fx.Graph, placeholder_names: Sequence[str]) -> str:
    """Readable text of ``graph``: ``graph(%x : f64[3], ...):`` then one op per line.

    Placeholders are printed as ``placeholder_names`` (in order); every other node as
    ``%name : dtype[shape] = target(%args, key=value)``.
    """
    ph = [n for n in graph.nodes if n.op == "placeholder"]
    names = dict(zip(ph, placeholder_names, strict=True))

    def typ(n: fx.Node) -> str:
        val = n.meta.get("val", n.meta.get("example_value"))
        if isinstance(val, torch.Tensor):
            dt = str(val.dtype).replace("torch.", "")
            return f"{dt}[{', '.join(str(s) for s in val.shape)}]"
        return "Any"

    head = ",\n      ".join(f"%{names[n]} : {typ(n)}" for n in ph)
    lines = [f"graph({head}):"]
    for n in graph.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            lines.append(f"  return {_fmt(n.args[0], names)}")
            continue
        target = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload):
            target = str(n.target)
        elif n.op == "call_function":
            mod = getattr(n.target, "__module__", None) or ""
            target = f"{mod}.{target}" if mod else str(target)
        args = [_fmt(a, names) for a in n.args]
        args += [f"{k}={_fmt(v, names)}" for k, v in n.kwargs.items()]
        lines.append(f"  %{n.name} : {typ(n)} = {target}({', '.join(args)})")
    return "\n".join(lines) + "\n"
