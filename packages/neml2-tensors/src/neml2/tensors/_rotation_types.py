"""Rotation types: `MRP` (modified Rodrigues parameters ``n tan(θ/4)``) and `Quaternion`.

``Quaternion`` is a unit quaternion stored scalar-first ``(w, x, y, z)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from neml2.tensors import _kernels as K
from neml2.tensors._primitive import Device, PrimitiveTensor, _shape_args
from neml2.tensors._scalar import Scalar
from neml2.tensors._second_order import R2
from neml2.tensors._vectors import Vec
from neml2.tensors._wrapper import TensorWrapper


def _angle(theta: Scalar | float, like: torch.Tensor) -> torch.Tensor:
    if isinstance(theta, TensorWrapper):
        return theta.data
    return torch.tensor(theta, dtype=like.dtype, device=like.device)


def _unit_axis(n: Vec) -> torch.Tensor:
    d = n.data
    out: torch.Tensor = d / torch.linalg.vector_norm(d, dim=-1, keepdim=True)
    return out


@dataclass(frozen=True, eq=False, init=False, repr=False)
class MRP(PrimitiveTensor):
    """Rotation as modified Rodrigues parameters ``r = n tan(θ/4)`` (identity: 0)."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (3,)

    @classmethod
    def from_axis_angle(cls, n: Vec, theta: Scalar | float) -> MRP:
        """``r = n̂ tan(θ/4)``."""
        t = _angle(theta, n.data)
        return cls._wrap(_unit_axis(n) * torch.tan(t / 4.0).unsqueeze(-1))

    @classmethod
    def from_axis_angle_standard(cls, n: Vec, theta: Scalar | float) -> MRP:
        """Map the classical Rodrigues vector ``v = n̂ tan(θ/2)`` via ``v / (sqrt(1 + |v|²) + 1)``."""
        t = _angle(theta, n.data)
        v = _unit_axis(n) * torch.tan(t / 2.0).unsqueeze(-1)
        return cls._wrap(v / (torch.sqrt(1.0 + (v * v).sum(-1, keepdim=True)) + 1.0))

    @classmethod
    def from_matrix(cls, R: R2) -> MRP:
        """MRP of a rotation matrix on the principal chart ``|r| <= 1`` (via a quaternion)."""
        return cls._wrap(K.quat_to_mrp(K.r2_to_quat(R.data)))

    @classmethod
    def rotation_from_to(cls, v1: Vec, v2: Vec) -> MRP:
        """Smallest rotation taking direction ``v1`` to direction ``v2``.

        With unit ``a, b``: ``q ∝ (1 + a·b, a × b)``, then ``r = q_v / (1 + q_w)``.
        """
        a = _unit_axis(v1)
        b = _unit_axis(v2)
        w = 1.0 + (a * b).sum(-1, keepdim=True)
        q = torch.cat([w, K.cross(a, b)], dim=-1)
        q = q / torch.linalg.vector_norm(q, dim=-1, keepdim=True)
        return cls._wrap(K.quat_to_mrp(q))

    @classmethod
    def rand(
        cls,
        *shape: Any,
        dtype: torch.dtype | None = None,
        device: Device = None,
        generator: torch.Generator | None = None,
    ) -> MRP:
        """Uniformly random orientations (Shoemake quaternion → matrix → MRP)."""
        shp = _shape_args(shape)
        dt = torch.float64 if dtype is None else dtype
        u = torch.rand((*shp, 3), dtype=dt, device=device, generator=generator)
        u1, u2, u3 = u.unbind(-1)
        a, b = torch.sqrt(1.0 - u1), torch.sqrt(u1)
        tp = 2.0 * math.pi
        q = torch.stack(
            [
                a * torch.sin(tp * u2),
                a * torch.cos(tp * u2),
                b * torch.sin(tp * u3),
                b * torch.cos(tp * u3),
            ],
            dim=-1,
        )
        return cls.from_matrix(R2._wrap(K.quat_to_r2(q)))


@dataclass(frozen=True, eq=False, init=False, repr=False)
class Quaternion(PrimitiveTensor):
    """Unit quaternion ``(w, x, y, z)``."""

    BASE_NDIM: ClassVar[int] = 1
    BASE_SHAPE: ClassVar[tuple[int, ...]] = (4,)

    @classmethod
    def identity(cls, dtype: torch.dtype | None = None, device: Device = None) -> Quaternion:
        """``(1, 0, 0, 0)``."""
        return cls._const([1.0, 0.0, 0.0, 0.0], dtype, device)
