"""``[Tensors] type = Python``: a tensor from a Python expression (or a block setting ``result``).

Namespace: ``neml2.types.__all__`` (the tensor types and their factories) plus ``torch``,
``math``, ``np``; other identifiers naming ``[Tensors]`` blocks resolve to those tensors (built
on demand; cycles are reported by the factory). Errors are re-raised as
``ValueError("[Tensors/<n>] expr raised <Exc>: ...")``.

An input file is code (README, "Security"): these expressions are evaluated with a small set of
builtins (no ``__import__``, ``open``, ``eval``, ``getattr``, ...), no ``import`` statements, no
attribute whose name starts with ``_``, none that reaches frames, code or files
(:data:`REFUSED_ATTRIBUTES`), and ``torch``/``np`` seen through views that give only the
numerical submodules (:data:`SUBMODULES`). That narrows what a mistaken or hostile expression
can do; it is not a sandbox. Python tensors can be switched off entirely:
``load_input(..., allow_python=False)``, ``NEML2_ALLOW_PYTHON_TENSORS=0`` or the tools'
``--no-python-tensors``.
"""

from __future__ import annotations

import ast
import builtins
import math
import os
import sys
import textwrap
import types
from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.schema import HitSchema, option

__all__ = [
    "ALLOW_ENV_VAR",
    "REFUSED_ATTRIBUTES",
    "SUBMODULES",
    "PythonTensor",
    "evaluate",
    "python_tensors_allowed",
]

ALLOW_ENV_VAR = "NEML2_ALLOW_PYTHON_TENSORS"

_BUILTINS = (
    "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float",
    "int", "isinstance", "len", "list", "map", "max", "min", "pow", "range", "reversed",
    "round", "slice", "sorted", "sum", "tuple", "zip",
    "ArithmeticError", "Exception", "IndexError", "KeyError", "TypeError", "ValueError",
    "ZeroDivisionError",
)  # fmt: skip

#: attributes refused whatever object they are read from: file and library I/O, code loading,
#: and the introspection that leads from a generator or function back to unrestricted globals
REFUSED_ATTRIBUTES = frozenset(
    {
        "load", "loads", "save", "savez", "savez_compressed", "savetxt", "loadtxt",
        "genfromtxt", "fromfile", "from_file", "tofile", "dump", "dumps", "memmap",
        "DataSource", "load_library", "hub", "ops", "classes", "library", "utils", "jit",
        "package", "serialization", "cpp_extension", "ctypeslib", "lib", "compile", "export",
        "system", "popen",
        "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
        "ag_code", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame",
        "tb_next", "func_globals", "co_code",
    }
)  # fmt: skip

#: the submodules an expression may reach through ``torch`` and ``np``
SUBMODULES = frozenset(
    {
        "torch.linalg", "torch.special", "torch.fft", "torch.nn", "torch.nn.functional",
        "np.linalg", "np.random", "np.fft",
    }
)  # fmt: skip


def python_tensors_allowed(explicit: bool | None = None) -> bool:
    """``explicit`` if given, else ``NEML2_ALLOW_PYTHON_TENSORS`` (unset: allowed; ``0``,
    ``false``, ``no``, ``off`` or empty: refused)."""
    if explicit is not None:
        return explicit
    from neml2.solvers._errors import is_truthy

    value = os.environ.get(ALLOW_ENV_VAR)
    return value is None or is_truthy(value)


class _ModuleView:
    """A module as an expression sees it: refused attributes and other submodules hidden."""

    __slots__ = ("_module", "_name")

    def __init__(self, module: types.ModuleType, name: str) -> None:
        self._module, self._name = module, name

    def __getattr__(self, attr: str) -> Any:
        qualified = f"{self._name}.{attr}"
        if attr.startswith("_") or attr in REFUSED_ATTRIBUTES:
            raise AttributeError(f"'{qualified}' is not available in a [Tensors] expression")
        value = getattr(self._module, attr)
        if isinstance(value, types.ModuleType):
            if qualified not in SUBMODULES:
                raise AttributeError(
                    f"'{qualified}' is not available in a [Tensors] expression "
                    f"(submodules: {', '.join(sorted(SUBMODULES))})"
                )
            return _ModuleView(value, qualified)
        return value

    def __repr__(self) -> str:
        return f"<module {self._name} (restricted)>"


def _names(code: types.CodeType) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def _check(tree: ast.AST) -> None:
    """Refuse imports, names starting with ``__`` and the attributes of the rules above (the
    first one in reading order is named)."""
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            what = "import statements are"
        elif isinstance(node, ast.Attribute) and (
            node.attr.startswith("_") or node.attr in REFUSED_ATTRIBUTES
        ):
            what = f"attribute '.{node.attr}' is"
        elif isinstance(node, ast.Name) and node.id.startswith("__"):
            what = f"name '{node.id}' is"
        else:
            continue
        end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        found.append((*end, what))
    if found:
        raise ValueError(f"{min(found)[2]} not allowed in a [Tensors] expression")


def _namespace() -> dict[str, Any]:
    import neml2.tensors as tensors

    try:
        import neml2.types as ntypes

        names = list(getattr(ntypes, "__all__", []))
        src: Any = ntypes
    except ImportError:
        names, src = list(tensors.__all__), tensors
    ns: dict[str, Any] = {n: getattr(src, n) for n in names if hasattr(src, n)}
    ns.update(torch=_ModuleView(torch, "torch"), math=math)
    try:
        import numpy

        ns["np"] = _ModuleView(numpy, "np")
    except ImportError:  # numpy is optional; expressions using np then fail with a NameError
        pass
    ns["__builtins__"] = {n: getattr(builtins, n) for n in _BUILTINS}
    # for torch's C code, which imports through the caller's builtins; out of an expression's
    # reach (no name or attribute starting with '_' passes _check)
    ns["__builtins__"]["__import__"] = _loaded_module
    return ns


def _loaded_module(name: str, *args: Any, **kwargs: Any) -> types.ModuleType:
    """``__import__`` of a module that is already imported (nothing new is loaded)."""
    if name not in sys.modules:
        raise ImportError(f"module '{name}' is not available in a [Tensors] expression")
    return builtins.__import__(name, *args, **kwargs)


@register_neml2_object("Python")
class PythonTensor:
    """A tensor defined by a Python expression over the neml2 tensor namespace."""

    SECTION: ClassVar[str] = "Tensors"
    STRICT_OPTIONS: ClassVar[bool] = False
    hit = HitSchema(option("expr", str, "Python expression (or block assigning 'result')"))

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Evaluate ``expr`` (refused when the input was loaded with Python tensors off)."""
        where = f"{node.file}:{node.line}: [Tensors/{node.name}]"
        if not python_tensors_allowed(getattr(factory, "allow_python", None)):
            from neml2.factory import InputError

            raise InputError(
                f"{where} (type='Python'): Python tensors are switched off "
                f"(allow_python=False, {ALLOW_ENV_VAR}=0 or --no-python-tensors); an input file "
                f"with Python expressions runs code, so load it only from a trusted source"
            )
        expr = node.get_str("expr")
        try:
            return evaluate(expr, factory)
        except RecursionError:
            raise
        except Exception as e:
            if getattr(e, "_neml2_located", False):
                raise
            err = ValueError(f"{where} expr raised {type(e).__name__}: {e}")
            err._neml2_located = True  # type: ignore[attr-defined]
            raise err from e


def evaluate(expr: str, factory: Any = None) -> Any:
    """Evaluate ``expr`` (an expression, or statements that assign ``result``)."""
    ns = _namespace()
    src = textwrap.dedent(expr).strip("\n")
    try:
        tree: ast.Expression | ast.Module = ast.parse(src, "<expr>", "eval")
        is_expr = True
    except SyntaxError:
        lines = expr.strip("\n").splitlines()
        src = "\n".join([lines[0].strip(), textwrap.dedent("\n".join(lines[1:]))]) if lines else ""
        tree = ast.parse(src, "<expr>", "exec")
        is_expr = False
    _check(tree)
    code = compile(tree, "<expr>", "eval" if is_expr else "exec")
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
