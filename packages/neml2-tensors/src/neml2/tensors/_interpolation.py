"""Piecewise-linear and bilinear table interpolation.

Tables carry their node axis as the *last sub-batch axis* (abscissae ``X``: Scalar with
``N`` nodes; ordinate ``Y``: any type with ``N`` nodes, or ``(N1, N2)`` for bilinear).
The interval is ``i = clamp(searchsorted(X, x, right=True), 1, N−1)``, so points outside
the table extrapolate from the end segments::

    linear:   y = Y[i−1] + (Y[i] − Y[i−1]) (x − X[i−1]) / (X[i] − X[i−1])
    bilinear: ξ = (x1 − X1[i−1]) / ΔX1, η = (x2 − X2[j−1]) / ΔX2,
              y = Y00 + (Y10 − Y00) ξ + (Y01 − Y00) η + (Y11 − Y10 − Y01 + Y00) ξ η
"""

from __future__ import annotations

from typing import TypeVar

import torch

from neml2.tensors._align import binary
from neml2.tensors._kernels import broadcast_shapes
from neml2.tensors._scalar import Scalar
from neml2.tensors._wrapper import TensorWrapper

Y_ = TypeVar("Y_", bound=TensorWrapper)
T = torch.Tensor


def _check(w: TensorWrapper, name: str, what: str, nsub: int = 1) -> None:
    if w.sub_batch_ndim < nsub:
        raise ValueError(
            f"{name}: {what} must carry its table node axis as the last {nsub} sub-batch axis(es); "
            f"got sub_batch_ndim={w.sub_batch_ndim}"
        )
    if w.k_ndim:
        raise ValueError(f"{name}: {what} must not carry K (tangent) axes")


def _nodes(x: T, X: T, batch: tuple[int, ...]) -> tuple[T, T, T]:
    """Interval index and bracketing abscissae for every batch entry."""
    n = X.shape[-1]
    Xe = X.expand((*batch, n)).contiguous()
    i = torch.searchsorted(Xe, x.expand(batch).unsqueeze(-1).contiguous(), right=True).clamp(
        1, n - 1
    )
    return i, Xe.gather(-1, i - 1).squeeze(-1), Xe.gather(-1, i).squeeze(-1)


def _take(Y: T, idx: T, batch: tuple[int, ...], nb: int) -> T:
    """``Y[..., idx, *base]`` gathered along the node axis at position ``len(batch)``."""
    base = tuple(Y.shape[Y.dim() - nb :])
    n = Y.shape[Y.dim() - nb - 1]
    Ye = Y.expand((*batch, n, *base))
    ind = idx.reshape(batch + (1,) + (1,) * nb).expand((*batch, 1, *base))
    return Ye.gather(len(batch), ind).squeeze(len(batch))


def _setup(x: Scalar, X: Scalar, Y: Y_, name: str) -> tuple[tuple[int, ...], T, T, T, T, T, int]:
    _check(X, name, "abscissa X")
    _check(Y, name, "ordinate Y")
    if not isinstance(x, Scalar) or not isinstance(X, Scalar):
        raise TypeError(f"{name}: x and X must be Scalars")
    Xd = X.materialize().data
    Yd = Y.materialize().data
    nb = Y.BASE_NDIM
    if Xd.shape[-1] != Yd.shape[Yd.dim() - nb - 1]:
        raise ValueError(
            f"{name}: X has {Xd.shape[-1]} nodes but Y has {Yd.shape[Yd.dim() - nb - 1]}"
        )
    batch = tuple(broadcast_shapes(x.data.shape, Xd.shape[:-1], Yd.shape[: Yd.dim() - nb - 1]))
    i, X0, X1 = _nodes(x.data, Xd, batch)
    Y0, Y1 = _take(Yd, i - 1, batch, nb), _take(Yd, i, batch, nb)
    sub = max(x.sub_batch_ndim, X.sub_batch_ndim - 1, Y.sub_batch_ndim - 1)
    return batch, X0, X1, Y0, Y1, x.data.expand(batch), sub


def _pad(s: T, nb: int) -> T:
    return s.reshape(s.shape + (1,) * nb)


def linear_interpolation(x: Scalar, X: Scalar, Y: Y_) -> Y_:
    """Piecewise-linear interpolation of table ``(X, Y)`` at ``x`` (linear extrapolation)."""
    _, X0, X1, Y0, Y1, xe, sub = _setup(x, X, Y, "linear_interpolation")
    nb = Y.BASE_NDIM
    out = Y0 + (Y1 - Y0) * _pad((xe - X0) / (X1 - X0), nb)
    return type(Y)._wrap(out, sub)


def linear_interpolation_slope(x: Scalar, X: Scalar, Y: Y_) -> Y_:
    """``dy/dx`` of :func:`linear_interpolation` (slope of the active segment)."""
    _, X0, X1, Y0, Y1, _, sub = _setup(x, X, Y, "linear_interpolation_slope")
    return type(Y)._wrap((Y1 - Y0) / _pad(X1 - X0, Y.BASE_NDIM), sub)


def jvp_linear_interpolation(x: Scalar, X: Scalar, Y: Y_, dx: Scalar) -> Y_:
    """Tangent ``slope · dx`` (``dx`` may carry K axes)."""
    slope = linear_interpolation_slope(x, X, Y)
    return binary(slope, dx, torch.mul, type(Y), True)


def _bilinear(
    x1: Scalar,
    x2: Scalar,
    X1: Scalar,
    X2: Scalar,
    Y: Y_,
    name: str,
) -> tuple[T, T, T, T, T, T, T, int]:
    _check(X1, name, "abscissa X1")
    _check(X2, name, "abscissa X2")
    _check(Y, name, "ordinate Y", 2)
    nb = Y.BASE_NDIM
    X1d, X2d, Yd = X1.materialize().data, X2.materialize().data, Y.materialize().data
    n1, n2 = X1d.shape[-1], X2d.shape[-1]
    ynodes = tuple(Yd.shape[Yd.dim() - nb - 2 : Yd.dim() - nb])
    if ynodes != (n1, n2):
        raise ValueError(f"{name}: Y has node shape {ynodes}, expected ({n1}, {n2}) from X1, X2")
    batch = tuple(
        broadcast_shapes(
            x1.data.shape,
            x2.data.shape,
            X1d.shape[:-1],
            X2d.shape[:-1],
            Yd.shape[: Yd.dim() - nb - 2],
        )
    )
    i, a0, a1 = _nodes(x1.data, X1d, batch)
    j, b0, b1 = _nodes(x2.data, X2d, batch)
    Yf = Yd.flatten(Yd.dim() - nb - 2, Yd.dim() - nb - 1)
    y00 = _take(Yf, (i - 1) * n2 + (j - 1), batch, nb)
    y10 = _take(Yf, i * n2 + (j - 1), batch, nb)
    y01 = _take(Yf, (i - 1) * n2 + j, batch, nb)
    y11 = _take(Yf, i * n2 + j, batch, nb)
    da, db = a1 - a0, b1 - b0
    xi = (x1.data.expand(batch) - a0) / da
    eta = (x2.data.expand(batch) - b0) / db
    sub = max(
        x1.sub_batch_ndim,
        x2.sub_batch_ndim,
        X1.sub_batch_ndim - 1,
        X2.sub_batch_ndim - 1,
        Y.sub_batch_ndim - 2,
    )
    return y00, y10 - y00, y01 - y00, y11 - y10 - y01 + y00, xi, eta, torch.stack([da, db]), sub


def bilinear_interpolation(x1: Scalar, x2: Scalar, X1: Scalar, X2: Scalar, Y: Y_) -> Y_:
    """Bilinear interpolation of table ``(X1, X2, Y)`` at ``(x1, x2)``."""
    y00, c1, c2, c12, xi, eta, _, sub = _bilinear(x1, x2, X1, X2, Y, "bilinear_interpolation")
    nb = Y.BASE_NDIM
    out = y00 + c1 * _pad(xi, nb) + c2 * _pad(eta, nb) + c12 * _pad(xi * eta, nb)
    return type(Y)._wrap(out, sub)


def bilinear_interpolation_slopes(
    x1: Scalar, x2: Scalar, X1: Scalar, X2: Scalar, Y: Y_
) -> tuple[Y_, Y_]:
    """``(∂y/∂x1, ∂y/∂x2) = ((c1 + c12 η)/ΔX1, (c2 + c12 ξ)/ΔX2)``."""
    _, c1, c2, c12, xi, eta, d, sub = _bilinear(x1, x2, X1, X2, Y, "bilinear_interpolation_slopes")
    nb = Y.BASE_NDIM
    s1 = (c1 + c12 * _pad(eta, nb)) / _pad(d[0], nb)
    s2 = (c2 + c12 * _pad(xi, nb)) / _pad(d[1], nb)
    return type(Y)._wrap(s1, sub), type(Y)._wrap(s2, sub)


def bilinear_interpolation_mixed_derivative(
    x1: Scalar, x2: Scalar, X1: Scalar, X2: Scalar, Y: Y_
) -> Y_:
    """``∂²y/∂x1∂x2 = (Y11 − Y10 − Y01 + Y00)/(ΔX1 ΔX2)`` of the active cell.

    Constant within a cell; the pure second derivatives ``∂²y/∂x1²``, ``∂²y/∂x2²`` are 0.
    """
    _, _, _, c12, _, _, d, sub = _bilinear(
        x1, x2, X1, X2, Y, "bilinear_interpolation_mixed_derivative"
    )
    return type(Y)._wrap(c12 / _pad(d[0] * d[1], Y.BASE_NDIM), sub)
