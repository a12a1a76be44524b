"""Closed-form residual problems for the Newton tests (the ``problems`` fixture of conftest)."""

from __future__ import annotations

import torch

from neml2.es import AssembledMatrix, AssembledVector, AxisGroup, AxisLayout, VariableInfo

SCALAR = AxisLayout.build([[("x", ())]])


class BackwardEuler:
    """Backward Euler of dx/dt = -k x: r(x) = x - x_n + dt k x, exact x = x_n / (1 + k dt)."""

    def __init__(self, xn: torch.Tensor, k: torch.Tensor, dt: float) -> None:
        self.xn, self.k, self.dt = xn, k, dt

    def residual(self, u: AssembledVector) -> AssembledVector:
        x = u.tensors[0]
        return AssembledVector(SCALAR, [-(x - self.xn + self.dt * self.k * x)])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        x = u.tensors[0]
        return AssembledMatrix(
            SCALAR, SCALAR, [[(1 + self.dt * self.k * torch.ones_like(x)).unsqueeze(-1)]]
        )


class Cubic:
    """r(x) = x³ + x - c; exact root by Cardano's formula."""

    def __init__(self, c: torch.Tensor) -> None:
        self.c = c
        self.residual_calls = 0
        self.jacobian_calls = 0
        self.grad_enabled: list[bool] = []

    def residual(self, u: AssembledVector) -> AssembledVector:
        self.residual_calls += 1
        self.grad_enabled.append(torch.is_grad_enabled())
        x = u.tensors[0]
        return AssembledVector(SCALAR, [-(x * x * x + x - self.c)])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        self.jacobian_calls += 1
        x = u.tensors[0]
        return AssembledMatrix(SCALAR, SCALAR, [[(3 * x * x + 1).unsqueeze(-1)]])

    def exact(self) -> torch.Tensor:
        """Cardano without cancellation: x = t - 1/(3t), t = cbrt(c/2 + sign(c) sqrt(c²/4 + 1/27))."""
        c = self.c.double()
        sgn = torch.where(c < 0, -1.0, 1.0).to(c)
        w = c / 2 + sgn * torch.sqrt(c * c / 4 + 1.0 / 27.0)
        t = torch.sign(w) * torch.abs(w) ** (1 / 3)
        return t - 1 / (3 * t)


class Scripted:
    """Residual values scripted per call (A = I): tests the controller's bookkeeping only."""

    def __init__(self, rows: list[list[float]], dtype: torch.dtype = torch.float64) -> None:
        self.rows = [torch.tensor(r, dtype=dtype).unsqueeze(-1) for r in rows]
        self.calls = 0

    def residual(self, u: AssembledVector) -> AssembledVector:
        out = self.rows[self.calls]
        self.calls += 1
        return AssembledVector(SCALAR, [out])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        return AssembledMatrix(SCALAR, SCALAR, [[torch.ones_like(u.tensors[0]).unsqueeze(-1)]])


S = 3
TWO_GROUP = AxisLayout(
    [
        AxisGroup((VariableInfo("x", (), (S,)),), "block"),
        AxisGroup((VariableInfo("y", (2,)),), "dense"),
    ]
)


class Coupled:
    """Per-site cubics coupled to a dense pair:

    r_x[s] = x_s³ + x_s + 0.5 (y₀ + y₁) - a_s,   r_y[i] = y_i³ + y_i + 0.2 Σ_s x_s - c_i.
    """

    def __init__(self, a: torch.Tensor, c: torch.Tensor) -> None:
        self.a, self.c = a, c
        self.jacobian_calls = 0

    def _r(self, u: AssembledVector) -> tuple[torch.Tensor, torch.Tensor]:
        x, y = u.tensors
        x = x[..., 0]
        rx = x * x * x + x + 0.5 * y.sum(-1, keepdim=True) - self.a
        ry = y * y * y + y + 0.2 * x.sum(-1, keepdim=True) - self.c
        return rx, ry

    def residual(self, u: AssembledVector) -> AssembledVector:
        rx, ry = self._r(u)
        return AssembledVector(TWO_GROUP, [-rx.unsqueeze(-1), -ry])

    def jacobian(self, u: AssembledVector) -> AssembledMatrix:
        self.jacobian_calls += 1
        x, y = u.tensors
        B = x.shape[:-2]
        dxx = (3 * x * x + 1).unsqueeze(-1)  # (B, S, 1, 1)
        dxy = 0.5 * x.new_ones((*B, S, 1, 2))
        dyx = 0.2 * x.new_ones((*B, S, 2, 1))
        dyy = torch.diag_embed(3 * y * y + 1)
        return AssembledMatrix(TWO_GROUP, TWO_GROUP, [[dxx, dxy], [dyx, dyy]])

    def matvec(self, u: AssembledVector, v: AssembledVector) -> AssembledVector:
        x, y = u.tensors
        vx, vy = v.tensors
        ox = (3 * x * x + 1) * vx + 0.5 * vy.sum(-1)[..., None, None]
        oy = (3 * y * y + 1) * vy + 0.2 * vx.sum((-2, -1))[..., None]
        return AssembledVector(TWO_GROUP, [ox, oy])
