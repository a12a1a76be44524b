"""``Verification``: compare a transient driver's histories with reference tables.

For each pair (``<T>_names`` entry ``output.stress`` / ``input.strain``, ``<T>_values`` entry a
``[Tensors]`` table with one row per checked step) the steps ``0 … n-1`` of the prefix (``n`` =
one past the largest recorded step index) are visited in order, only those in ``time_steps`` if
given; the ``j``-th visited step is compared with row ``j`` (the whole table if ``time_steps`` has
exactly one entry). Both sides are squeezed; a step missing from the results passes only if its
reference row is zero.
"""

from __future__ import annotations

from typing import Any

import torch

from neml2._registry import register_neml2_object
from neml2.drivers._base import Driver, pair_options
from neml2.drivers._compare import ComparisonError, compare, report
from neml2.schema import HitSchema, SchemaField, dependency, option

__all__ = ["Verification"]

_TYPES = ("Scalar", "SR2", "Vec", "WR2")


def _fields() -> list[SchemaField]:
    out = [
        dependency("driver", "get_driver", "The TransientDriver to run"),
        option("rtol", float, "Relative tolerance", default=1e-5),
        option("atol", float, "Absolute tolerance", default=1e-8),
        option("time_steps", list[int], "Steps to check (default: all)", default=()),
    ]
    for t in _TYPES:
        out += [
            option(f"{t}_names", list, f"{t} variables to check, e.g. output.stress", default=()),
            option(
                f"{t}_values", list, f"[Tensors] reference tables of the {t} variables", default=()
            ),
        ]
    return out


@register_neml2_object("Verification")
class Verification(Driver):
    """Run a TransientDriver and compare variable histories with reference tables."""

    hit = HitSchema(*_fields())

    def __init__(
        self,
        *,
        driver: Any,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        time_steps: Any = (),
        factory: Any = None,
        name: str | None = None,
        **typed: Any,
    ) -> None:
        super().__init__(factory=factory, name=name)
        allowed = {f.name for f in self.hit.fields}
        unknown = sorted(set(typed) - allowed)
        if unknown:
            raise TypeError(f"Verification: unexpected argument(s) {unknown}")
        self.driver = self._dependency(driver, "get_driver")
        if not hasattr(self.driver, "result"):
            raise ValueError(
                f"option 'driver': {type(self.driver).__name__} records no results "
                f"(expected a TransientDriver)"
            )
        self.rtol = float(rtol)
        self.atol = float(atol)
        steps = time_steps.split() if isinstance(time_steps, str) else list(time_steps)
        self.time_steps = [int(s) for s in steps]
        self.references = pair_options("", typed, factory, _TYPES)
        if not self.references:
            raise ValueError(
                "give at least one variable to verify "
                f"({', '.join(f'{t}_names/{t}_values' for t in _TYPES)})"
            )
        for n, t, _ in self.references:
            prefix, dot, var = n.partition(".")
            if prefix not in ("input", "output") or not dot or not var:
                raise ValueError(
                    f"option '{t}_names': '{n}' must read 'input.<variable>' or 'output.<variable>'"
                )

    def run(self) -> bool:
        """Run the driver and compare; raise :class:`ComparisonError` listing the mismatches."""
        self.driver.run()
        res = self.driver.result()
        lines: list[str] = []
        checked = 0
        for n, _, ref in self.references:
            prefix, _, var = n.partition(".")
            table = ref.data
            for j, step in enumerate(self._steps(res, prefix)):
                row = table if len(self.time_steps) == 1 else self._row(table, j, n, step)
                row = row.squeeze()
                key = f"{prefix}.{step}.{var}"
                checked += 1
                actual = res.get(key)
                if actual is None:
                    if bool((row != 0).any()):
                        lines.append(
                            f"  {key}: missing from the results (reference row {j} is nonzero)"
                        )
                    continue
                line = compare(key, actual.detach().squeeze(), row, self.rtol, self.atol)
                if line is not None:
                    lines.append(line)
        if lines:
            raise ComparisonError(
                report(
                    f"Verification: {len(lines)} of {checked} checked value(s) differ from the "
                    f"references (rtol={self.rtol:g}, atol={self.atol:g}):",
                    lines,
                )
            )
        return True

    def _steps(self, res: dict[str, torch.Tensor], prefix: str) -> list[int]:
        idx = [int(k.split(".", 2)[1]) for k in res if k.startswith(f"{prefix}.")]
        n = max(idx) + 1 if idx else 0
        if not self.time_steps:
            return list(range(n))
        wanted = set(self.time_steps)
        return [i for i in range(n) if i in wanted]

    @staticmethod
    def _row(table: torch.Tensor, j: int, name: str, step: int) -> torch.Tensor:
        if j >= table.shape[0]:
            raise ValueError(
                f"Verification: reference for '{name}' has {table.shape[0]} row(s), fewer than "
                f"the steps checked (no row for step {step})"
            )
        return table[j]
