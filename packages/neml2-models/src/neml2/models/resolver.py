"""``DependencyResolver``: evaluation order and boundary variables of a model composition.

Providers of a name are bucketed by priority (``low`` < default < ``high``); at most one per
bucket; the highest bucket wins and the buckets are chained ``low → default → high``. Every
consumer depends on the winner of each name it reads. Kahn's algorithm (FIFO, insertion order)
gives the order. Inputs: names read with no earlier provider. Outputs: produced names not read by
a model after their winner, plus the produced ``additional_outputs``.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DependencyResolver", "Resolution"]

_RANK = {"low": 0, None: 1, "high": 2}


@dataclass(frozen=True)
class Resolution:
    """Result of :meth:`DependencyResolver.resolve`."""

    order: list[Any]
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    winners: dict[str, Any]


def _label(priority: str | None) -> str:
    return "default" if priority is None else f"priority='{priority}'"


def _tname(m: Any) -> str:
    return type(m).__name__


class DependencyResolver:
    """Resolve the evaluation order of ``models`` wired by variable name."""

    def __init__(self, models: Sequence[Any], additional_outputs: Sequence[str] = ()) -> None:
        self.models = list(models)
        self.additional_outputs = list(additional_outputs)

    def _winners(self) -> tuple[dict[str, Any], list[tuple[int, int]]]:
        buckets: dict[str, dict[str | None, int]] = {}
        for i, m in enumerate(self.models):
            prios = getattr(m, "output_priorities", {}) or {}
            for name in m.output_spec:
                p = prios.get(name)
                if p not in _RANK:
                    raise ValueError(f"{_tname(m)}: output '{name}' has invalid priority {p!r}")
                b = buckets.setdefault(name, {})
                if p in b:
                    raise ValueError(
                        f"Variable '{name}' is provided by more than one model at the same "
                        f"{_label(p)} level: {_tname(self.models[b[p]])}, {_tname(m)}. "
                        f"At most one provider per (name, priority) is allowed."
                    )
                b[p] = i
        winners: dict[str, Any] = {}
        edges: list[tuple[int, int]] = []
        for name, b in buckets.items():
            ranked = [b[p] for p in sorted(b, key=lambda q: _RANK[q])]
            winners[name] = ranked[-1]
            edges += list(itertools.pairwise(ranked))
        return winners, edges

    def resolve(self) -> Resolution:
        """Order the models and derive the composition's inputs and outputs."""
        models = self.models
        winners, edges = self._winners()
        for j, m in enumerate(models):
            for name in m.input_spec:
                w = winners.get(name)
                if w is not None and w != j:
                    edges.append((w, j))
        succ: list[list[int]] = [[] for _ in models]
        indeg = [0] * len(models)
        for a, b in dict.fromkeys(edges):
            succ[a].append(b)
            indeg[b] += 1
        ready = deque(i for i in range(len(models)) if indeg[i] == 0)
        order: list[int] = []
        while ready:
            i = ready.popleft()
            order.append(i)
            for j in sorted(succ[i]):
                indeg[j] -= 1
                if indeg[j] == 0:
                    ready.append(j)
        if len(order) != len(models):
            left = [_tname(models[i]) for i in range(len(models)) if i not in set(order)]
            raise ValueError(f"Circular dependency detected among models: {', '.join(left)}")
        pos = {i: k for k, i in enumerate(order)}
        inputs: dict[str, Any] = {}
        provided: set[str] = set()
        produced: dict[str, Any] = {}
        for i in order:
            m = models[i]
            for name, t in m.input_spec.items():
                if name not in provided and name not in inputs:
                    inputs[name] = t
            for name in m.output_spec:
                provided.add(name)
                produced.setdefault(name, models[winners[name]].output_spec[name])
        outputs: dict[str, Any] = {}
        for name, t in produced.items():
            wpos = pos[winners[name]]
            read_after = any(name in models[i].input_spec for i in order if pos[i] > wpos)
            if not read_after:
                outputs[name] = t
        for name in self.additional_outputs:
            if name in produced and name not in outputs:
                outputs[name] = produced[name]
        return Resolution(
            order=[models[i] for i in order],
            inputs=inputs,
            outputs=outputs,
            winners={n: models[i] for n, i in winners.items()},
        )
