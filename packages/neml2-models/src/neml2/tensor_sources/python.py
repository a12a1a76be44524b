"""``[Tensors] type = Python``: a tensor from a Python expression (or a block setting ``result``).

Namespace: ``neml2.types.__all__`` plus ``torch``, ``math``, ``np``; other identifiers naming
``[Tensors]`` blocks resolve to those tensors (built on demand; cycles are reported by the
factory). Errors are re-raised as ``ValueError("[Tensors/<n>] expr raised <Exc>: ...")``.
"""

from __future__ import annotations

import math
import textwrap
import types
from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.schema import HitSchema, option

__all__ = ["PythonTensor"]


def _names(code: types.CodeType) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _namespace() -> dict[str, Any]:
    import neml2.tensors as tensors

    try:
        import neml2.types as ntypes

        names = list(getattr(ntypes, "__all__", []))
        src: Any = ntypes
    except ImportError:
        names, src = list(tensors.__all__), tensors
    ns: dict[str, Any] = {n: getattr(src, n) for n in names if hasattr(src, n)}
    ns.update(torch=torch, math=math)
    try:
        import numpy

        ns["np"] = numpy
    except ImportError:  # numpy is optional; expressions using np then fail with a NameError
        pass
    return ns


@register_neml2_object("Python")
class PythonTensor:
    """A tensor defined by a Python expression over the neml2 tensor namespace."""

    SECTION: ClassVar[str] = "Tensors"
    STRICT_OPTIONS: ClassVar[bool] = False
    hit = HitSchema(option("expr", str, "Python expression (or block assigning 'result')"))

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Evaluate ``expr``."""
        expr = node.get_str("expr")
        where = f"[Tensors/{node.name}]"
        try:
            return evaluate(expr, factory)
        except RecursionError:
            raise
        except Exception as e:
            if getattr(e, "_neml2_located", False):
                raise
            err = ValueError(
                f"{node.file}:{node.line}: {where} expr raised {type(e).__name__}: {e}"
            )
            err._neml2_located = True  # type: ignore[attr-defined]
            raise err from e


def evaluate(expr: str, factory: Any = None) -> Any:
    """Evaluate ``expr`` (an expression, or statements that assign ``result``)."""
    ns = _namespace()
    src = textwrap.dedent(expr).strip("\n")
    try:
        code = compile(src, "<expr>", "eval")
        is_expr = True
    except SyntaxError:
        lines = expr.strip("\n").splitlines()
        src = "\n".join([lines[0].strip(), textwrap.dedent("\n".join(lines[1:]))]) if lines else ""
        code = compile(src, "<expr>", "exec")
        is_expr = False
    if factory is not None:
        for n in _names(code):
            if n not in ns and factory.has_tensor(n):
                ns[n] = factory.get_tensor(n)
    if is_expr:
        return eval(code, ns)
    exec(code, ns)
    if "result" not in ns:
        raise NameError("the expression block must assign 'result'")
    return ns["result"]
