"""``GMRES``: batched restarted GMRES(m), right-preconditioned.

Per restart cycle with ``r = b − A x`` (``r = b`` on the first cycle, no matvec),
``β = ‖r‖``, ``v₀ = r/β``: Arnoldi with classical Gram–Schmidt applied twice
(CGS2), ``z_j = M⁻¹ v_j``, ``w = A z_j``, ``h = Vᵀw``, ``w −= V h`` (twice), then
Givens rotations reduce the Hessenberg column; ``|g_{j+1}|`` is the residual
norm. At the cycle end ``H y = g`` (upper triangular) and ``x += M⁻¹ V y``.
"""

from __future__ import annotations

import torch

from neml2._registry import register_neml2_object
from neml2.schema import HitSchema, option
from neml2.solvers._krylov import (
    FlatOp,
    KrylovResult,
    KrylovSolver,
    krylov_options,
    safe_div,
    vnorm,
)
from neml2.solvers._preconditioners import Preconditioner


def _project(V: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """One classical Gram–Schmidt pass: ``h = Vᵀ w``, ``w − V h``."""
    h = (V @ w.unsqueeze(-1)).squeeze(-1)
    return h, w - (h.unsqueeze(-2) @ V).squeeze(-2)


@register_neml2_object("GMRES")
class GMRES(KrylovSolver):
    """Batched restarted GMRES(m) with CGS2 orthogonalization and Givens rotations."""

    NAME = "GMRES"
    hit = (
        HitSchema(option("restart", int, "Krylov subspace size before a restart", default=40))
        + krylov_options()
    )

    def __init__(
        self,
        *,
        restart: int = 40,
        max_its: int = 1000,
        abs_tol: float = 0.0,
        rel_tol: float = 1e-4,
        preconditioner: Preconditioner | None = None,
        cache_strategy: str = "none",
        cache_max_its: int = 10,
    ) -> None:
        if restart < 1:
            raise ValueError(f"GMRES: restart must be >= 1, got {restart}")
        super().__init__(
            max_its=max_its,
            abs_tol=abs_tol,
            rel_tol=rel_tol,
            preconditioner=preconditioner,
            cache_strategy=cache_strategy,
            cache_max_its=cache_max_its,
        )
        self.restart = restart

    def _iterate(self, matvec: FlatOp, b: torch.Tensor, precond: FlatOp) -> KrylovResult:
        tol = self.tolerance(b)
        batch, n = b.shape[:-1], b.shape[-1]
        x = torch.zeros_like(b)
        r = b
        beta = vnorm(r)
        its = 0
        while not bool((beta <= tol).all()) and its < self.max_its:
            m = min(self.restart, self.max_its - its)
            V = b.new_zeros((*batch, m + 1, n))
            H = b.new_zeros((*batch, m, m))
            g = [beta] + [torch.zeros_like(beta) for _ in range(m)]
            cs: list[torch.Tensor] = []
            sn: list[torch.Tensor] = []
            V[..., 0, :] = safe_div(r, beta.unsqueeze(-1))
            k = 0
            for j in range(m):
                w = matvec(precond(V[..., j, :]))
                Vj = V[..., : j + 1, :]
                h1, w = _project(Vj, w)
                h2, w = _project(Vj, w)
                hn = vnorm(w)
                V[..., j + 1, :] = safe_div(w, hn.unsqueeze(-1))
                col = [*(h1 + h2).unbind(-1), hn]
                for i in range(j):
                    a, c_ = col[i], col[i + 1]
                    col[i] = cs[i] * a + sn[i] * c_
                    col[i + 1] = -sn[i] * a + cs[i] * c_
                denom = torch.hypot(col[j], col[j + 1])
                c = torch.where(denom > 0, safe_div(col[j], denom), torch.ones_like(denom))
                s = safe_div(col[j + 1], denom)
                cs.append(c)
                sn.append(s)
                col[j] = denom
                H[..., : j + 1, j] = torch.stack(col[: j + 1], dim=-1)
                g[j + 1] = -s * g[j]
                g[j] = c * g[j]
                its += 1
                k = j + 1
                if its >= self.max_its or bool((g[j + 1].abs() <= tol).all()):
                    break
            Hk = H[..., :k, :k]
            diag = torch.diagonal(Hk, dim1=-2, dim2=-1)
            Hk = Hk + torch.diag_embed(torch.where(diag == 0, 1.0, 0.0).to(Hk.dtype))
            gk = torch.stack(g[:k], dim=-1).unsqueeze(-1)
            y = torch.linalg.solve_triangular(Hk, gk, upper=True)
            x = x + precond((y.transpose(-1, -2) @ V[..., :k, :]).squeeze(-2))
            r = b - matvec(x)
            beta = vnorm(r)
        return KrylovResult(x, its, beta <= tol, beta)
