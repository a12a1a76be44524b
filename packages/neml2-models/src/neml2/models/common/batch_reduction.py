r"""Reductions over batch axes: ``SR2DynamicSum/Mean`` and ``SR2IntermediateSum/Mean/Diff``.

* ``<T>DynamicSum`` / ``<T>DynamicMean``: :math:`y = \sum_i x_i` / :math:`\frac1N \sum_i x_i`
  over dynamic-batch axis ``dim`` (negative counts from the end of the dynamic batch).
* ``<T>IntermediateSum`` / ``<T>IntermediateMean``: the same over the last batch axis, treated as
  a sub-batch axis (the last sub-batch axis when ``from`` has one); ``reduces`` labels that axis.
* ``<T>IntermediateDiff``: ``n``-th forward difference
  :math:`(\Delta x)_i = x_{i+1} - x_i` along sub-batch axis ``dim`` (its length shrinks by ``n``;
  an input without sub-batch has its last batch axis treated as the sub-batch axis).

All are linear: tangents are reduced the same way (after broadcasting them to the batch layout
of ``from``; per-site seeds on the reduced sub axis are exposed, not summed).
"""

from __future__ import annotations

from typing import Any

from neml2._registry import register_neml2_object
from neml2.models.model import Model
from neml2.schema import HitSchema, input, option, output
from neml2.tensors import SR2, diff, sum as region_sum

__all__ = ["BatchReduction", "fit_tangent", "make_reduction"]


def fit_tangent(t: Any, x: Any) -> Any:
    """Broadcast tangent ``t`` (leading K axes) to the batch layout of primal ``x``.

    Missing leading batch axes are inserted and size-1 axes expanded, except sub axes that are
    "broadcast" in ``t`` (they stand for per-site seeds and stay implicit).
    """
    k, nb = t.k_ndim, t.BASE_NDIM
    d = t.data
    nt, nx = d.dim() - k - nb, x.data.dim() - x.BASE_NDIM
    if nt < nx:
        d = d.reshape(d.shape[:k] + (1,) * (nx - nt) + d.shape[k:])
        t = t._like(d)
        nt = nx
    if t.sub_batch_ndim != x.sub_batch_ndim:
        t = t.with_sub_batch_ndim(x.sub_batch_ndim)
    xb = (1,) * (nt - nx) + tuple(x.data.shape[:nx])
    tb = tuple(d.shape[k : k + nt])
    keep = set()
    ns = t.sub_batch_ndim
    for j, state in enumerate(t.sub_batch_state):
        if state == "broadcast":
            keep.add(nt - ns + j)
    target = [tb[i] if (i in keep or xb[i] == 1) else xb[i] for i in range(nt)]
    if tuple(target) == tb:
        return t
    return t._like(d.expand((*d.shape[:k], *target, *d.shape[k + nt :])))


def _as_int(value: Any, what: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"option '{what}': expected an integer, got {value!r}") from None


class BatchReduction(Model):
    """Generic batch reduction ``to = op(from)``; concrete types from :func:`make_reduction`."""

    KIND: str = ""
    dim: int
    n: int

    def __post_init__(self) -> None:
        if self.KIND == "diff":
            self.n = _as_int(self.n, "n")
        if self.KIND == "diff" and self.n < 1:
            raise ValueError(f"option 'n': the difference order must be >= 1, got {self.n}")
        if self.KIND.startswith("intermediate") or self.KIND == "diff":
            red = getattr(self, "reduces", "")
            if not isinstance(red, str) or len(red.split()) != 1:
                raise ValueError(f"option 'reduces': expected one axis label, got {red!r}")

    def _where(self) -> str:
        return f"{type(self).__name__} '{self._hit_name}'"

    def _dynamic_dim(self, x: Any) -> int:
        nd = x.dynamic_batch_ndim
        if not -nd <= self.dim < nd:
            raise ValueError(
                f"{self._where()}: option 'dim' = {self.dim} is out of range for variable "
                f"'{self.from_var}' with dynamic batch shape {tuple(x.dynamic_batch_shape)}"
            )
        return self.dim - nd if self.dim >= 0 else self.dim

    def _as_sub(self, x: Any) -> Any:
        if x.sub_batch_ndim:
            return x
        if x.data.dim() == x.BASE_NDIM:
            raise ValueError(
                f"{self._where()}: variable '{self.from_var}' has no batch axis to reduce"
            )
        return x.with_sub_batch_ndim(1)

    def _reduce(self, t: Any, x: Any) -> Any:
        """The reduction of ``t`` (primal or tangent) laid out like primal ``x``."""
        kind = self.KIND
        if kind.startswith("dynamic"):
            dim = self._dynamic_dim(x)
            ts = x if t is x else fit_tangent(t, x)
            y = region_sum(ts.dynamic_batch, dim)
            return y / float(x.dynamic_batch_shape[dim]) if kind == "dynamic_mean" else y
        xs = self._as_sub(x)
        ts = xs if t is x else fit_tangent(t, xs)
        if kind == "diff":
            ns = xs.sub_batch_ndim
            if not -ns <= self.dim < ns:
                raise ValueError(
                    f"{self._where()}: option 'dim' = {self.dim} is out of range for variable "
                    f"'{self.from_var}' with sub-batch shape {tuple(xs.sub_batch_shape)}"
                )
            y = diff(ts.sub_batch, self.n, self.dim)
            return y.with_sub_batch_ndim(x.sub_batch_ndim)
        y = region_sum(ts.sub_batch, -1)
        return y / float(xs.sub_batch_shape[-1]) if kind == "intermediate_mean" else y

    def forward(self, x: Any, *, v: Any = None) -> Any:
        """The reduced value and (with ``v``) the reduced tangents."""
        y = self._reduce(x, x)
        if v is None:
            return y
        actions = {"from": lambda d: self._reduce(d, x)}
        return y, *self.propagate_tangents(v, "to", actions, output=y)


_DOCS = {
    "DynamicSum": ("dynamic_sum", "Sum over a dynamic-batch axis of a {t}."),
    "DynamicMean": ("dynamic_mean", "Mean over a dynamic-batch axis of a {t}."),
    "IntermediateSum": ("intermediate_sum", "Sum of a {t} over its last (sub-)batch axis."),
    "IntermediateMean": ("intermediate_mean", "Mean of a {t} over its last (sub-)batch axis."),
    "IntermediateDiff": ("diff", "n-th forward difference of a {t} along a sub-batch axis."),
}


def make_reduction(op: str, tensor_type: Any) -> type[BatchReduction]:
    """Concrete registered ``<T><op>`` class (``op`` a key of the reductions table)."""
    kind, doc = _DOCS[op]
    T = tensor_type
    fields = [
        input("from", T, "Variable to reduce", attr="from_var"),
        output("to", T, "Reduced variable", attr="to_var"),
    ]
    if kind.startswith("dynamic") or kind == "diff":
        fields.append(option("dim", int, "Axis (dynamic batch, or sub-batch for Diff)"))
    if kind == "diff":
        fields.append(option("n", int, "Difference order", default="1"))
    if not kind.startswith("dynamic"):
        fields.append(option("reduces", str, "Label of the sub-batch axis acted on"))
    name = f"{T.__name__}{op}"
    body = {
        "hit": HitSchema(*fields), "KIND": kind, "__doc__": doc.format(t=T.__name__),
        "__module__": __name__,
    }  # fmt: skip
    return register_neml2_object(name)(type(name, (BatchReduction,), body))


REDUCTIONS = {op: make_reduction(op, SR2) for op in _DOCS}
