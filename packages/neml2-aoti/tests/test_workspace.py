"""``workspace_scope``: the Python face of libneml2's per-thread output workspace."""

from __future__ import annotations

import threading

import pytest
import torch

from neml2.aoti import FatalError
from neml2.aoti._aoti import (
    Workspace,
    sum_of_products,
    workspace_empty,
    workspace_free_bytes,
    workspace_scope,
)

B = 1000


def _terms() -> list[tuple[float, torch.Tensor | None, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    t = torch.randn(19, 6, B, generator=g, dtype=torch.float64).transpose(1, 2)
    s = torch.randn(1, B, 1, generator=g, dtype=torch.float64)
    return [(1.0, s, t), (2.0, None, t)]


def test_outputs_reuse_freed_memory_inside_a_scope() -> None:
    terms = _terms()
    expected = sum_of_products(terms)
    nbytes = expected.numel() * expected.element_size()
    with workspace_scope():
        out = sum_of_products(terms)
        first = out.data_ptr()
        del out
        assert workspace_free_bytes() == nbytes
        again = sum_of_products(terms)
        assert again.data_ptr() == first
        assert torch.equal(again, expected)
    assert workspace_free_bytes() == 0
    assert torch.equal(again, expected)  # still valid after the scope ended


def test_workspace_empty_is_plain_outside_a_scope() -> None:
    t = workspace_empty([3, 5], torch.float32)
    assert t.shape == (3, 5) and t.dtype == torch.float32 and t.is_contiguous()
    with workspace_scope():
        w = workspace_empty([4, 5], torch.float64)
        p = w.data_ptr()
        del w
        assert workspace_empty([5, 4], torch.float64).data_ptr() == p  # same byte size


def test_a_scope_is_entered_once() -> None:
    scope = workspace_scope()
    with scope, pytest.raises(FatalError, match="already entered"):
        scope.__enter__()
    assert workspace_free_bytes() == 0


def test_a_scope_is_exited_on_its_own_thread() -> None:
    scope = workspace_scope()
    scope.__enter__()
    errors: list[BaseException] = []

    def exit_elsewhere() -> None:
        try:
            scope.__exit__(None, None, None)
        except FatalError as e:
            errors.append(e)

    t = threading.Thread(target=exit_elsewhere)
    t.start()
    t.join()
    assert len(errors) == 1 and "another thread" in str(errors[0])
    scope.__exit__(None, None, None)
    with workspace_scope():
        sum_of_products(_terms())
        assert workspace_free_bytes() > 0  # a fresh workspace: the old one was closed


def test_a_workspace_object_keeps_memory_between_scopes() -> None:
    terms = _terms()
    nbytes = 19 * B * 6 * 8
    ws = Workspace(retained_bytes=nbytes)
    with workspace_scope(ws):
        a, b = sum_of_products(terms), sum_of_products(terms)
        first = a.data_ptr()
        del a, b
    assert ws.free_bytes == nbytes  # one of the two kept: the retained bytes
    with workspace_scope(ws):
        assert sum_of_products(terms).data_ptr() == first
    ws.release()
    assert ws.free_bytes == 0
    with pytest.raises(FatalError, match="workspace_scope"), workspace_scope("not a workspace"):  # type: ignore[arg-type]
        pass
