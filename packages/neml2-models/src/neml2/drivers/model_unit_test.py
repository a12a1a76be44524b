r"""``ModelUnitTest``: the test harness of HIT model scenarios (not a registered driver).

A ``[Drivers]`` block with ``type = ModelUnitTest`` gives ``model``, ``input_<T>_names/values``
(covering the model's inputs exactly) and ``output_<T>_names/values``. :meth:`run` checks the
values (``assert_close``, exact shape and dtype) and, per input :math:`x` with the tangent
:math:`\delta x = \mathrm{arange}(1..n)/(n+1)` shaped like :math:`x`, the analytic JVP
:math:`\partial y/\partial x\,\delta x` of every output against ``torch.autograd.functional.jvp``.
Unknown keys are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from neml2.drivers._base import TENSOR_TYPES, pair_options
from neml2.drivers._compare import ComparisonError, compare, report

__all__ = ["ModelUnitTest", "ModelUnitTestReport"]

_autograd_jvp: Any = torch.autograd.functional.jvp


@dataclass(frozen=True)
class ModelUnitTestReport:
    """Numbers of value and JVP comparisons that ran (and passed)."""

    value_checks: int
    jvp_checks: int


def _tol(node: Any, key: str, default: float) -> float:
    return float(node.get_float(key)) if node.has_field(key) else default


class ModelUnitTest:
    """Check a model's outputs and forward derivatives on given inputs."""

    def __init__(self, factory: Any, node: Any) -> None:
        self.factory = factory
        self.where = f"{node.file or '<string>'}:{node.line}: [Drivers/{node.name}]"
        raw = {
            f: node.get_str_list(f) for f in node.field_names() if f.endswith(("_names", "_values"))
        }
        try:
            self.model = factory.get_model(node.get_str("model"))
            self.inputs = pair_options("input_", raw, factory, list(TENSOR_TYPES))
            self.outputs = pair_options("output_", raw, factory, list(TENSOR_TYPES))
        except ValueError as e:
            raise ValueError(f"{self.where} (type='ModelUnitTest'): {e}") from e
        self.value_rtol = _tol(node, "value_rel_tol", 1e-5)
        self.value_atol = _tol(node, "value_abs_tol", 1e-8)
        self.deriv_rtol = _tol(node, "derivative_rel_tol", 1e-5)
        self.deriv_atol = _tol(node, "derivative_abs_tol", 1e-8)
        self._check_spec()

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> ModelUnitTest:
        """The ``ModelUnitTest`` block ``name`` (default: the first one) of an input file."""
        from neml2.factory import load_input

        return cls._pick(load_input(path), name)

    @classmethod
    def from_string(cls, text: str, name: str | None = None) -> ModelUnitTest:
        """Same as :meth:`from_file` for HIT text."""
        from neml2.factory import load_string

        return cls._pick(load_string(text), name)

    @classmethod
    def _pick(cls, factory: Any, name: str | None) -> ModelUnitTest:
        for block in factory.names("Drivers"):
            node = factory.node("Drivers", block)
            if node.get_str("type", "") == "ModelUnitTest" and name in (None, block):
                return cls(factory, node)
        which = f"named '{name}' " if name else ""
        raise KeyError(f"No [Drivers] block {which}with type = ModelUnitTest in {factory.filename}")

    def _check_spec(self) -> None:
        spec = self.model.input_spec
        given = {n: t for n, t, _ in self.inputs}
        missing = [n for n in spec if n not in given]
        extra = [n for n in given if n not in spec]
        if missing or extra:
            raise ValueError(
                f"{self.where}: inputs must match the model's inputs exactly "
                f"(missing: {missing}, not inputs: {extra})"
            )
        for n, t in given.items():
            if spec[n] is not TENSOR_TYPES[t]:
                raise ValueError(f"{self.where}: input '{n}' is a {spec[n].__name__}, given as {t}")
        outs = self.model.output_spec
        for n, t, _ in self.outputs:
            if n not in outs:
                raise ValueError(
                    f"{self.where}: '{n}' is not an output of the model (outputs: {list(outs)})"
                )
            if outs[n] is not TENSOR_TYPES[t]:
                raise ValueError(
                    f"{self.where}: output '{n}' is a {outs[n].__name__}, given as {t}"
                )

    def run(self, check_values: bool = True, check_dvalue: bool = True) -> ModelUnitTestReport:
        """Run the checks; raise :class:`ComparisonError` listing the failures."""
        state = {n: v for n, _, v in self.inputs}
        lines: list[str] = []
        nval = njvp = 0
        if check_values:
            got = self.model.call_by_name(state)
            for n, _, expected in self.outputs:
                nval += 1
                line = compare(n, got[n].data, expected.data, self.value_rtol, self.value_atol)
                if line is not None:
                    lines.append(line)
        if check_dvalue:
            for n in self.model.input_spec:
                lines += self._jvp_lines(state, n)
                njvp += len(self.model.output_spec)
        if lines:
            raise ComparisonError(report(f"{self.where}: ModelUnitTest failed:", lines))
        return ModelUnitTestReport(nval, njvp)

    def _jvp_lines(self, state: dict[str, Any], name: str) -> list[str]:
        x = state[name]
        n = x.data.numel()
        tangent = (torch.arange(1, n + 1, dtype=x.dtype, device=x.device) / (n + 1)).reshape(
            x.data.shape
        )
        _, analytic = self.model.jvp(state, {name: tangent})
        outs = list(self.model.output_spec)

        def f(xd: torch.Tensor) -> tuple[torch.Tensor, ...]:
            s = dict(state)
            s[name] = type(x)(xd, sub_batch_ndim=x.sub_batch_ndim)
            res = self.model.call_by_name(s)
            return tuple(res[o].data for o in outs)

        _, oracle = _autograd_jvp(f, x.data, tangent)
        lines = []
        for o, ref in zip(outs, oracle, strict=True):
            got = analytic[o].data
            ref = ref.expand(got.shape) if ref.shape != got.shape else ref
            line = compare(f"d({o})/d({name})", got, ref, self.deriv_rtol, self.deriv_atol)
            if line is not None:
                lines.append(line)
        return lines
