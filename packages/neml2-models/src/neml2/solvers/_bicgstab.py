"""``BiCGStab``: batched right-preconditioned BiCGStab.

With ``r̂ = r₀ = b`` (``x₀ = 0``, no matvec), per iteration::

    ρ' = r̂·r,  β = (ρ'/ρ)(α/ω),  p = r + β(p − ω v),  p̂ = M⁻¹p,  v = A p̂,
    α = ρ'/(r̂·v),  s = r − α v,  ŝ = M⁻¹s,  t = A ŝ,  ω = (t·s)/(t·t),
    x += α p̂ + ω ŝ,  r = s − ω t.

Elements whose ``‖s‖`` already meets the tolerance take ``x += α p̂`` and stop;
converged elements are frozen so their breakdowns cannot produce NaNs.
"""

from __future__ import annotations

import torch

from neml2._registry import register_neml2_object
from neml2.solvers._krylov import (
    FlatOp,
    KrylovResult,
    KrylovSolver,
    krylov_options,
    safe_div,
    vdot,
    vnorm,
)


@register_neml2_object("BiCGStab")
class BiCGStab(KrylovSolver):
    """Batched BiCGStab (same options as GMRES without ``restart``)."""

    NAME = "BiCGStab"
    hit = krylov_options()

    def _iterate(self, matvec: FlatOp, b: torch.Tensor, precond: FlatOp) -> KrylovResult:
        tol = self.tolerance(b)
        x = torch.zeros_like(b)
        r = b
        r_hat = b
        rn = vnorm(r)
        one = torch.ones_like(rn)
        rho, alpha, omega = one, one, one
        p = torch.zeros_like(b)
        v = torch.zeros_like(b)
        done = rn <= tol
        its = 0
        while its < self.max_its and not bool(done.all()):
            its += 1
            active = (~done).unsqueeze(-1)
            rho_new = vdot(r_hat, r)
            beta = safe_div(rho_new, rho) * safe_div(alpha, omega)
            p = r + beta.unsqueeze(-1) * (p - omega.unsqueeze(-1) * v)
            p_hat = precond(p)
            v = matvec(p_hat)
            alpha = safe_div(rho_new, vdot(r_hat, v))
            s = r - alpha.unsqueeze(-1) * v
            half = (vnorm(s) <= tol).unsqueeze(-1)
            s_hat = precond(s)
            t = matvec(s_hat)
            omega = safe_div(vdot(t, s), vdot(t, t))
            x_new = x + alpha.unsqueeze(-1) * p_hat
            x_new = torch.where(half, x_new, x_new + omega.unsqueeze(-1) * s_hat)
            r_new = torch.where(half, s, s - omega.unsqueeze(-1) * t)
            x = torch.where(active, x_new, x)
            r = torch.where(active, r_new, r)
            rho = rho_new
            rn = vnorm(r)
            done = done | (rn <= tol)
        return KrylovResult(x, its, done, rn)
