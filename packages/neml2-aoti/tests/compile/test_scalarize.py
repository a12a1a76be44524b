"""The component-wise re-export of implicit graphs (:mod:`neml2.aoti.compile._scalarize`).

Each program is exported as the compile pipeline exports graphs (dynamic batch on axis 0) and
scalarized; the scalarized program must give the original's outputs at other batch sizes
(multiples of :data:`SCALARIZED_ROW_MULTIPLE` on CPU, which its signature records), store them
batch-innermost and fold structural constants. Programs it cannot express raise
:class:`Unsupported` with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch import nn

from neml2.aoti.compile import _scalarize
from neml2.aoti.compile._lower import export_graph
from neml2.aoti.compile._scalarize import (
    SCALARIZED_ROW_MULTIPLE,
    Unsupported,
    scalarize,
    scalarized_chunk_rows,
)
from neml2.aoti.compile._signature import graph_signature

aten = torch.ops.aten

#: Batches a scalarized CPU program takes: multiples of the row multiple
M = SCALARIZED_ROW_MULTIPLE


def _rows(batch: int, *base: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed + batch)
    return torch.rand(batch, *base, generator=g, dtype=torch.float64) + 0.5


class Mixed(nn.Module):
    """Views, permutes, slices, cat, reductions, where, pow, exp/log/sqrt and constant blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.tensor(1.0, dtype=torch.float64))  # folds to x * 1
        self.scale: torch.Tensor
        self.register_buffer("scale", torch.tensor([2.0, 0.0, -1.0], dtype=torch.float64))

    def forward(self, u: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        dev = u[:, :3] - u[:, :3].mean(-1, keepdim=True)
        norm = torch.sqrt((dev * dev).sum(-1) * 1.5 + 1e-16)
        n = dev / norm.unsqueeze(-1)
        eye = torch.eye(3, dtype=u.dtype)
        outer = n.unsqueeze(-1) * n.unsqueeze(-2)  # (B, 3, 3)
        block = (eye - outer).movedim(-1, 0) * self.weight  # (3, B, 3)
        rate = torch.where(norm > 1.0, torch.pow(norm, s), torch.exp(-norm)) * torch.log(1 + s)
        b = torch.cat(
            [n * rate.unsqueeze(-1) * self.scale, (u[:, 3:] ** 2).sum(-1, keepdim=True)], -1
        )
        J = torch.cat([block.permute(1, 0, 2), (self.scale * n).unsqueeze(-1).expand(-1, 3, 1)], -1)
        return b, torch.cat([J, J[:, :1, :]], 1)  # (B, 4), (B, 4, 4)


class _Varargs(nn.Module):
    """``module`` behind a ``forward(*args)`` signature, like the pipeline's graph adapters."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(self.module(*args))


def _export(module: nn.Module, *example: torch.Tensor) -> torch.export.ExportedProgram:
    return export_graph(_Varargs(module), list(example), dynamic=True)[0]


def _count(ep: torch.export.ExportedProgram, op: object) -> int:
    return sum(1 for n in ep.graph.nodes if n.op == "call_function" and n.target is op)


def test_scalarized_program_matches_the_original_at_any_batch() -> None:
    ep = _export(Mixed(), _rows(4, 5), _rows(4))
    out, min_batch = scalarize(ep, [_rows(4, 5), _rows(4)])
    assert min_batch == 1
    for batch in (M, 3 * M, 17 * M):
        args = (_rows(batch, 5, seed=1), _rows(batch, seed=2))
        want, got = ep.module()(*args), out.module()(*args)
        for w, g in zip(want, got, strict=True):
            assert g.shape == w.shape
            torch.testing.assert_close(g, w, rtol=1e-13, atol=1e-13)
    # every op of the scalarized program works on (B,) vectors or assembles the outputs
    for node in out.graph.nodes:
        val = node.meta.get("val")
        if node.op == "call_function" and isinstance(val, torch.Tensor):
            assert val.dim() <= 1 or node.target in (aten.stack.default, aten.view.default,
                                                     aten.reshape.default, aten.movedim.int,
                                                     aten.permute.default)  # fmt: skip


def test_rows_come_in_multiples_on_cpu() -> None:
    """The batch axis is exported as M k, and the graph signature tells the runtime what to pad
    a call to: a multiple of M, at least the 2 M rows it was traced with (export keeps k >= 2).
    (The lowered graph refuses other batches: tests/runtime/test_batch_rows.py.)"""
    ep = _export(Mixed(), _rows(4, 5), _rows(4))
    assert "batch_rows" not in graph_signature(ep)
    out, _ = scalarize(ep, [_rows(4, 5), _rows(4)])
    assert graph_signature(out)["batch_rows"] == {"multiple": M, "min": 2 * M}


def test_outputs_are_stored_batch_innermost() -> None:
    ep = _export(Mixed(), _rows(4, 5), _rows(4))
    out, _ = scalarize(ep, [_rows(4, 5), _rows(4)])
    b, J = out.module()(_rows(2 * M, 5), _rows(2 * M))
    assert b.stride() == (1, 2 * M)
    assert J.stride() == (1, 8 * M, 2 * M)


class Offsets(nn.Module):
    """A non-persistent buffer (kept among the program's constants, not its state dict)."""

    def __init__(self) -> None:
        super().__init__()
        self.offset: torch.Tensor
        self.register_buffer("offset", torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64), False)

    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor]:
        return (u * u + self.offset,)


def test_non_persistent_buffers_fold() -> None:
    ep = _export(Offsets(), _rows(4, 3))
    out, _ = scalarize(ep, [_rows(4, 3)])
    x = _rows(3 * M, 3)
    torch.testing.assert_close(out.module()(x)[0], ep.module()(x)[0], rtol=0, atol=0)


class Identity(nn.Module):
    """``u @ I`` as a chain rule writes it: every product with a 0 or 1 folds away."""

    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor]:
        eye = torch.eye(3, dtype=u.dtype).expand(u.shape[0], 3, 3)
        return ((u.unsqueeze(-1) * eye).sum(-2),)


def test_structural_zeros_and_ones_fold() -> None:
    ep = _export(Identity(), _rows(4, 3))
    assert _count(ep, aten.mul.Tensor) > 0
    out, _ = scalarize(ep, [_rows(4, 3)])
    assert _count(out, aten.mul.Tensor) == 0
    assert _count(out, aten.add.Tensor) == 0
    x = _rows(5 * M, 3)
    torch.testing.assert_close(out.module()(x)[0], x, rtol=0, atol=0)


class BatchMean(nn.Module):
    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor]:
        return (u - u.mean(0),)


class BatchFold(nn.Module):
    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor]:
        return (u.reshape(-1).cumsum(0).reshape(u.shape),)


@pytest.mark.parametrize(
    ("module", "reason"),
    [(BatchMean(), "reduction over the batch axis"), (BatchFold(), "batch axis")],
)
def test_programs_mixing_rows_stay_as_they_are(module: nn.Module, reason: str) -> None:
    ep = _export(module, _rows(4, 3))
    with pytest.raises(Unsupported, match=reason):
        scalarize(ep, [_rows(4, 3)])


class Solve(nn.Module):
    def forward(self, A: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor]:
        return (torch.linalg.solve(A + 3 * torch.eye(3, dtype=A.dtype), b),)


def test_an_op_without_a_component_form_is_named() -> None:
    ep = _export(Solve(), _rows(4, 3, 3), _rows(4, 3))
    with pytest.raises(Unsupported, match="op aten"):
        scalarize(ep, [_rows(4, 3, 3), _rows(4, 3)])


def test_a_failing_component_op_leaves_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _export(Mixed(), _rows(4, 5), _rows(4))

    def broken(x: object) -> object:
        raise RuntimeError("no kernel")

    monkeypatch.setitem(_scalarize._UNARY, aten.exp.default, broken)
    with pytest.raises(Unsupported, match="component-wise evaluation failed: RuntimeError"):
        scalarize(ep, [_rows(4, 5), _rows(4)])


class Signs(nn.Module):
    """A bool mask times -1 and 1: the factor must not fold away (the product is floating)."""

    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor]:
        mask = u > 1.0
        return (mask * -1.0 + mask * 1.0 + mask * 2.0 + u,)


def test_integer_and_bool_components_keep_their_factor() -> None:
    ep = _export(Signs(), _rows(4, 3))
    out, _ = scalarize(ep, [_rows(4, 3)])
    x = _rows(5 * M, 3) * 0.8
    torch.testing.assert_close(out.module()(x)[0], ep.module()(x)[0], rtol=0, atol=0)


def test_element_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _export(Mixed(), _rows(4, 5), _rows(4))
    monkeypatch.setattr(_scalarize, "MAX_ELEMENT_OPS", 20)
    with pytest.raises(Unsupported, match="more than 20 element operations"):
        scalarize(ep, [_rows(4, 5), _rows(4)])


def test_chaboche_newton_graphs_are_scalarized(artifact: Callable[[str], Path]) -> None:
    """The compiled Chaboche scenario records the row block of scalarized Newton graphs."""
    meta = json.loads((artifact("chaboche") / "metadata.json").read_text())
    (seg,) = [s for s in meta["segments"] if s.get("kind") == "implicit"]
    assert seg["n_unknowns"] == 19
    # the same in every dtype leaf (the metadata is shared): sized for float64
    assert seg["chunk_rows"] == scalarized_chunk_rows(19) == 272


@pytest.mark.parametrize("n", [1, 6, 19, 64, 100, 1000])
def test_row_blocks_are_whole_multiples(n: int) -> None:
    """A block of a scalarized Newton graph is a multiple of M rows, at least the 2 M rows the
    graph takes, and its float64 Jacobian fits the block budget unless that minimum exceeds it."""
    rows = scalarized_chunk_rows(n)
    assert rows % M == 0 and rows >= 2 * M
    assert rows == 2 * M or rows * n * n * 8 <= _scalarize.SCALARIZED_BLOCK_BYTES
    assert rows + M > _scalarize.SCALARIZED_BLOCK_BYTES // (n * n * 8) or rows == 2 * M
