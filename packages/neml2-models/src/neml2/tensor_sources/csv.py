"""``[Tensors] type = CSV<T>``: columns of a CSV file as a batched ``(N, *base)`` tensor.

``csv_file`` (relative to the input file) and exactly one of ``variable`` (column names
``<var>`` for Scalar, ``<var>_x _y _z`` for Vec, ``<var>_xx _yy _zz _yz _xz _xy`` for SR2
— Mandel storage taken verbatim — and ``<var>_zy _xz _yx`` for WR2) or ``column_names``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, ClassVar

import torch

from neml2._registry import register_neml2_object
from neml2.schema import HitSchema, option
from neml2.tensors import SR2, WR2, Scalar, Vec

__all__ = ["SUFFIXES", "CSVTensor"]

SUFFIXES: dict[str, tuple[str, ...]] = {
    "Scalar": ("",),
    "Vec": ("_x", "_y", "_z"),
    "SR2": ("_xx", "_yy", "_zz", "_yz", "_xz", "_xy"),
    "WR2": ("_zy", "_xz", "_yx"),
}


class CSVTensor:
    """Columns of a CSV file as a typed tensor (concrete types below)."""

    SECTION: ClassVar[str] = "Tensors"
    STRICT_OPTIONS: ClassVar[bool] = False
    TENSOR_TYPE: ClassVar[Any] = Scalar
    hit = HitSchema(
        option("csv_file", str, "CSV file (relative to the input file)"),
        option("variable", str, "Variable name (columns <variable><suffix>)", default=""),
        option("column_names", list, "Explicit column names", default=()),
    )

    @classmethod
    def from_hit(cls, node: Any, factory: Any) -> Any:
        """Read the columns."""
        tname = cls.TENSOR_TYPE.__name__
        where = f"{node.file}:{node.line}: [Tensors/{node.name}] (type='CSV{tname}')"
        rel = node.get_str("csv_file")
        var = node.get_str("variable", "")
        cols = node.get_str_list("column_names", [])
        if bool(var) == bool(cols):
            raise _err(f"{where}: give exactly one of 'variable' or 'column_names'")
        n = len(SUFFIXES[tname])
        names = [f"{var}{s}" for s in SUFFIXES[tname]] if var else cols
        if len(names) != n:
            raise _err(
                f"{where} option 'column_names': a {tname} needs {n} columns, got {len(names)}"
            )
        base = factory.directory if factory is not None else Path.cwd()
        path = Path(rel) if Path(rel).is_absolute() else base / rel
        if not path.is_file():
            raise _err(f"{where} option 'csv_file': file not found: '{path}'")
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
        if not rows:
            raise _err(f"{where} option 'csv_file': '{path}' is empty")
        header = [h.strip() for h in rows[0]]
        missing = [c for c in names if c not in header]
        if missing:
            opt = "variable" if var else "column_names"
            raise _err(
                f"{where} option '{opt}': column(s) {missing} not found in '{path}' "
                f"(columns: {header})"
            )
        idx = [header.index(c) for c in names]
        try:
            data = [[float(r[i]) for i in idx] for r in rows[1:] if any(x.strip() for x in r)]
        except (ValueError, IndexError) as e:
            raise _err(f"{where} option 'csv_file': bad number in '{path}': {e}") from e
        t = torch.tensor(data, dtype=torch.float64).reshape(len(data), *cls.TENSOR_TYPE.BASE_SHAPE)
        return cls.TENSOR_TYPE(t)


def _err(msg: str) -> ValueError:
    e = ValueError(msg)
    e._neml2_located = True  # type: ignore[attr-defined]
    return e


for _t in (Scalar, Vec, SR2, WR2):
    _cls = type(
        f"CSV{_t.__name__}",
        (CSVTensor,),
        {
            "TENSOR_TYPE": _t,
            "__doc__": f"{_t.__name__} columns of a CSV file.",
            "__module__": __name__,
        },
    )
    register_neml2_object(f"CSV{_t.__name__}")(_cls)
    globals()[_cls.__name__] = _cls  # CSVScalar, CSVVec, CSVSR2, CSVWR2 (also neml2.CSVScalar ...)
