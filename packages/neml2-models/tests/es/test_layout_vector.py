"""AxisLayout and AssembledVector: packing, flat ordering, norms and arithmetic."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from neml2.es import AssembledVector, AxisGroup, AxisLayout, VariableInfo, broadcast_batch


def _layout() -> AxisLayout:
    """Dense group {a: SR2-like (6,), s: scalar with sub (2,)} + block group sub (3,)."""
    return AxisLayout(
        [
            AxisGroup((VariableInfo("a", (6,)), VariableInfo("s", (), (2,))), "dense"),
            AxisGroup((VariableInfo("g", (), (3,)), VariableInfo("v", (3,), (3,))), "block"),
        ]
    )


def _values(
    batch: tuple[int, ...], dtype: torch.dtype, device: torch.device
) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64).to(device, dtype)

    return {"a": r(*batch, 6), "s": r(*batch, 2), "g": r(*batch, 3), "v": r(*batch, 3, 3)}


def test_group_geometry() -> None:
    L = _layout()
    dense, block = L.groups
    assert (dense.width, dense.offsets, dense.trailing_shape) == (8, (0, 6, 8), (8,))
    assert (block.width, block.offsets, block.trailing_shape) == (4, (0, 1, 4), (3, 4))
    assert block.flat_size == 12 and L.flat_size == 20
    assert L.names == ("a", "s", "g", "v")
    assert L.locate("v") == (1, 1)


def test_layout_errors() -> None:
    with pytest.raises(ValueError, match="share one sub-batch shape; 'b' has"):
        AxisGroup((VariableInfo("a", (), (2,)), VariableInfo("b", (), (3,))), "block")
    with pytest.raises(ValueError, match="structure must be 'dense' or 'block'"):
        AxisGroup((VariableInfo("a"),), "sparse")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'a' appears in two groups"):
        AxisLayout.build([[("a", ())], [("a", (2,))]])
    with pytest.raises(KeyError, match="no variable 'zz'"):
        _layout().locate("zz")
    with pytest.raises(ValueError, match="2 groups but 1 structures"):
        AxisLayout.build([[("a", ())], [("b", ())]], ["dense"])


def test_pack_unpack_roundtrip(device: torch.device, dtype: torch.dtype) -> None:
    L = _layout()
    vals = _values((4, 5), dtype, device)
    x = AssembledVector.pack(L, vals)
    assert x.tensors[0].shape == (4, 5, 8)
    assert x.tensors[1].shape == (4, 5, 3, 4)
    back = x.unpack()
    for k, v in vals.items():
        assert torch.equal(back[k], v)
    # dense group: sub-batch folded after the base variables of earlier members
    assert torch.equal(x.tensors[0][..., 6:], vals["s"])
    # block group: per site [g, v_0, v_1, v_2]
    assert torch.equal(x.tensors[1][..., 0], vals["g"])
    assert torch.equal(x.tensors[1][..., 1:], vals["v"])


def test_pack_broadcasts_batches_and_checks_shapes(
    device: torch.device, dtype: torch.dtype
) -> None:
    L = AxisLayout.build([[("x", (2,)), ("t", ())]])
    x = AssembledVector.pack(
        L,
        {
            "x": torch.ones(3, 2, device=device, dtype=dtype),
            "t": torch.tensor(5.0, dtype=dtype, device=device),
        },
    )
    assert x.tensors[0].shape == (3, 3)
    assert torch.equal(x.tensors[0][:, 2], torch.full((3,), 5.0, dtype=dtype, device=device))
    with pytest.raises(ValueError, match=r"variable 'x' expects trailing shape .* \(2,\)"):
        AssembledVector.pack(L, {"x": torch.ones(3, 4), "t": torch.ones(3)})
    with pytest.raises(KeyError, match=r"missing variable\(s\) \['t'\]"):
        AssembledVector.pack(L, {"x": torch.ones(2)})
    with pytest.raises(ValueError, match="group 0"):
        AssembledVector(L, [torch.ones(3, 4)])


def test_flat_roundtrip_and_ordering(device: torch.device, dtype: torch.dtype) -> None:
    L = _layout()
    vals = _values((2,), dtype, device)
    x = AssembledVector.pack(L, vals)
    f = x.flat()
    assert f.shape == (2, 20)
    # site-major flattening of the block group
    assert torch.equal(f[:, 8:], x.tensors[1].reshape(2, 12))
    y = AssembledVector.from_flat(L, f)
    for a, b in zip(x.tensors, y.tensors, strict=True):
        assert torch.equal(a, b)


def test_norm_dot_axpy(device: torch.device, dtype: torch.dtype) -> None:
    L = _layout()
    x = AssembledVector.pack(L, _values((4,), dtype, device))
    y = AssembledVector.pack(L, {k: 2 * v + 1 for k, v in _values((4,), dtype, device).items()})
    raw_x, raw_y = x.unpack(), y.unpack()
    # independent reference: sum over every variable's own (*sub, *base) axes
    ref_dot = sum((raw_x[k] * raw_y[k]).reshape(4, -1).sum(-1) for k in raw_x)
    tol: dict[str, Any] = (
        {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 0}
    )
    torch.testing.assert_close(x.dot(y), ref_dot, **tol)
    ref_norm = torch.sqrt(
        torch.stack([(v * v).reshape(4, -1).sum(-1) for v in raw_x.values()]).sum(0)
    )
    torch.testing.assert_close(x.norm(), ref_norm, **tol)
    torch.testing.assert_close(x.norm_sq(), ref_norm**2, **tol)
    alpha = torch.tensor([0.0, 1.0, -2.0, 0.5], dtype=dtype, device=device)
    z = x.axpy(alpha, y)
    for k in raw_x:
        a = alpha.reshape((4,) + (1,) * (raw_x[k].ndim - 1))
        torch.testing.assert_close(z.unpack()[k], raw_x[k] + a * raw_y[k], **tol)
    torch.testing.assert_close(x.axpy(2.0, y).flat(), x.flat() + 2 * y.flat(), **tol)
    torch.testing.assert_close(x.scale(alpha).flat(), alpha[:, None] * x.flat(), **tol)
    mask = torch.tensor([True, False, True, False], device=device)
    w = x.where(mask, y).flat()
    assert torch.equal(w[mask], x.flat()[mask]) and torch.equal(w[~mask], y.flat()[~mask])
    torch.testing.assert_close((x - y + y).flat(), x.flat(), **tol)
    assert torch.equal((-x).flat(), -x.flat())
    assert torch.count_nonzero(x.zeros_like().flat()) == 0


def test_broadcast_batch() -> None:
    assert broadcast_batch((3, 1), (4,), ()) == torch.Size([3, 4])
    assert broadcast_batch() == torch.Size([])
    with pytest.raises(ValueError, match="do not broadcast"):
        broadcast_batch((3,), (4,))
    assert math.prod(broadcast_batch((2, 1, 5), (7, 1))) == 70
