"""AssembledMatrix: block storage conventions checked against explicit dense matrices."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from neml2.es import AssembledMatrix, AssembledVector, AxisGroup, AxisLayout, VariableInfo

S = 3  # sites


def _layouts() -> tuple[AxisLayout, AxisLayout]:
    rows = AxisLayout(
        [
            AxisGroup((VariableInfo("r0", (2,), (S,)),), "block"),
            AxisGroup((VariableInfo("r1", (2,)),), "dense"),
        ]
    )
    cols = AxisLayout(
        [
            AxisGroup((VariableInfo("u0", (2,), (S,)),), "block"),
            AxisGroup((VariableInfo("u1", (2,)),), "dense"),
        ]
    )
    return rows, cols


def _random_matrix(batch: int, dtype: torch.dtype, device: torch.device) -> AssembledMatrix:
    g = torch.Generator().manual_seed(1)

    def r(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64).to(device, dtype)

    rows, cols = _layouts()
    return AssembledMatrix(
        rows, cols, [[r(batch, S, 2, 2), r(batch, S, 2, 2)], [r(batch, S, 2, 2), r(batch, 2, 2)]]
    )


def _explicit_dense(A: AssembledMatrix) -> torch.Tensor:
    """Reference dense matrix built entry by entry from the block conventions."""
    b00, b01 = A.blocks[0]
    b10, b11 = A.blocks[1]
    B = b00.shape[0]
    D = torch.zeros(B, 2 * S + 2, 2 * S + 2, dtype=b00.dtype, device=b00.device)
    for s in range(S):
        D[:, 2 * s : 2 * s + 2, 2 * s : 2 * s + 2] = b00[:, s]  # block diagonal
        D[:, 2 * s : 2 * s + 2, 2 * S :] = b01[:, s]  # site rows x dense columns
        D[:, 2 * S :, 2 * s : 2 * s + 2] = b10[:, s]  # dense rows x site columns
    D[:, 2 * S :, 2 * S :] = b11
    return D


def test_to_dense_matches_conventions(device: torch.device, dtype: torch.dtype) -> None:
    A = _random_matrix(4, dtype, device)
    assert torch.equal(A.to_dense(), _explicit_dense(A))


def test_matvec_matches_dense(device: torch.device, dtype: torch.dtype) -> None:
    A = _random_matrix(4, dtype, device)
    x = AssembledVector.from_flat(
        A.col_layout, torch.randn(4, 2 * S + 2, dtype=torch.float64).to(device, dtype)
    )
    y = A.matvec(x)
    ref = (_explicit_dense(A) @ x.flat().unsqueeze(-1)).squeeze(-1)
    tol: dict[str, Any] = (
        {"rtol": 1e-5, "atol": 1e-5} if dtype == torch.float32 else {"rtol": 1e-12, "atol": 1e-12}
    )
    torch.testing.assert_close(y.flat(), ref, **tol)


def test_batchless_block_broadcasts(device: torch.device, dtype: torch.dtype) -> None:
    L = AxisLayout.build([[("x", (2,))]])
    A = AssembledMatrix(L, L, [[torch.eye(2, dtype=dtype, device=device) * 3]])
    x = AssembledVector(L, [torch.ones(5, 2, dtype=dtype, device=device)])
    assert torch.equal(A.matvec(x).tensors[0], torch.full((5, 2), 3.0, dtype=dtype, device=device))
    assert A.to_dense().shape == (2, 2)
    assert torch.equal(A.diagonal().tensors[0], torch.full((2,), 3.0, dtype=dtype, device=device))


def test_shape_errors() -> None:
    rows, cols = _layouts()
    with pytest.raises(ValueError, match=r"block \(1, 1\) .* expects trailing shape \(2, 2\)"):
        AssembledMatrix(
            rows,
            cols,
            [
                [torch.zeros(S, 2, 2), torch.zeros(S, 2, 2)],
                [torch.zeros(S, 2, 2), torch.zeros(3, 3)],
            ],
        )
    with pytest.raises(ValueError, match="2 x 2 grid"):
        AssembledMatrix(rows, cols, [[torch.zeros(S, 2, 2)]])
    other = AxisLayout([AxisGroup((VariableInfo("q", (2,), (4,)),), "block")])
    with pytest.raises(ValueError, match="different sub-batch shapes"):
        AssembledMatrix(other, AxisLayout([rows.groups[0]]), [[torch.zeros(4, 2, 2)]])


def test_transpose_matches_dense(device: torch.device, dtype: torch.dtype) -> None:
    A = _random_matrix(3, dtype, device)
    At = A.transpose()
    assert At.row_layout == A.col_layout and At.col_layout == A.row_layout
    assert torch.equal(At.to_dense(), A.to_dense().transpose(-1, -2))
