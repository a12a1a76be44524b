r"""Calibrate two parameters of a J2 Perzyna viscoplastic model with pyzag + a torch optimizer.

Synthetic data: uniaxial strain ramps :math:`\varepsilon_{xx}(t) = \dot\varepsilon t` at
``--rates`` strain rates (one batch entry each), integrated with the true parameters of
``calibrate_perzyna.i`` (Perzyna reference stress :math:`\eta` = ``flow_rate_eta``,
hardening modulus :math:`K` = ``isoharden_K``). The fit starts from values 30 %
off and minimizes the mean squared stress error

.. math:: L(\eta, K) = \frac{1}{N} \sum_{k, b} (\sigma_{xx}^{k b}(\eta, K) - \hat\sigma_{xx}^{k b})^2
   / \hat\sigma_{\max}^2

with L-BFGS over parameters scaled to [0, 1] (pyzag ``RangeRescale``); gradients come from
pyzag's adjoint. Prints the loss per epoch and the recovered values.

Run: ``.venv/bin/python examples/calibration/calibrate_perzyna.py [--steps N] [--epochs N]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from pyzag import nonlinear, reparametrization  # type: ignore[import-untyped, unused-ignore]

import neml2
from neml2.pyzag import NEML2PyzagModel

HERE = Path(__file__).resolve().parent
INPUT = HERE / "calibrate_perzyna.i"
FIT = ("flow_rate_eta", "isoharden_K")


def make_solver(
    block_size: int,
) -> tuple[NEML2PyzagModel, nonlinear.RecursiveNonlinearEquationSolver]:
    """The pyzag model (only the two fitted parameters mirrored) and its recursive solver."""
    sys_ = neml2.load_nonlinear_system(INPUT, "eq_sys", dtype=torch.float64)
    model = NEML2PyzagModel(sys_, include_parameters=FIT)
    solver = nonlinear.RecursiveNonlinearEquationSolver(
        model,
        step_generator=nonlinear.StepGenerator(block_size),
        predictor=nonlinear.PreviousStepsPredictor(),
    )
    return model, solver


def loading(
    model: NEML2PyzagModel, steps: int, rates: list[float]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Initial state ``(nbatch, nstate)`` and forces ``(steps + 1, nbatch, nforce)``."""
    f64 = torch.float64
    nb = len(rates)
    tmax = torch.tensor([0.02 / r for r in rates], dtype=f64)  # every ramp reaches 2 % strain
    t = torch.linspace(0, 1, steps + 1, dtype=f64)[:, None] * tmax
    eps = torch.zeros(steps + 1, nb, 6, dtype=f64)
    eps[..., 0] = t * torch.tensor(rates, dtype=f64)
    forces = model.assemble_forces({"t": t, "strain": eps})
    y0 = model.assemble_state({"stress": torch.zeros(nb, 6, dtype=f64),
                               "equivalent_plastic_strain": torch.zeros(nb, dtype=f64)})  # fmt: skip
    return y0, forces


def stress_xx(model: NEML2PyzagModel, solver: nonlinear.RecursiveNonlinearEquationSolver,
              y0: torch.Tensor, forces: torch.Tensor, adjoint: bool) -> torch.Tensor:  # fmt: skip
    """:math:`\\sigma_{xx}` history ``(steps + 1, nbatch)``."""
    n = forces.shape[0]
    if adjoint:
        y = nonlinear.solve_adjoint(solver, y0, n, forces)
    else:
        with torch.no_grad():
            y = nonlinear.solve(solver, y0, n, forces)
    return model.unpack_state(y)["stress"][..., 0]


def calibrate(steps: int = 20, epochs: int = 15, rates: list[float] | None = None,
              perturb: float = 1.3, block_size: int = 5, verbose: bool = True) -> dict[str, tuple[float, float]]:  # fmt: skip
    """Fit :data:`FIT` from ``perturb`` x their true values; returns ``{name: (true, fitted)}``."""
    rates = rates or [1e-4, 1e-3, 1e-2]
    model, solver = make_solver(block_size)
    true = {n: getattr(model, n).detach().clone() for n in FIT}
    y0, forces = loading(model, steps, rates)
    data = stress_xx(model, solver, y0, forces, adjoint=False)
    scale = data.abs().max()
    with torch.no_grad():
        for n in FIT:
            getattr(model, n).mul_(perturb)
    reparametrization.Reparameterizer(
        {f"func.{n}": reparametrization.RangeRescale(0.25 * true[n], 2.0 * true[n]) for n in FIT}
    )(solver)
    opt = torch.optim.LBFGS(
        solver.parameters(), lr=1.0, max_iter=8, tolerance_grad=1e-14, tolerance_change=1e-16,
        line_search_fn="strong_wolfe",
    )  # fmt: skip

    history: list[float] = []

    def closure() -> torch.Tensor:
        opt.zero_grad()
        pred = stress_xx(model, solver, y0, forces, adjoint=True)
        loss = torch.mean((pred - data) ** 2) / scale**2
        loss.backward()  # type: ignore[no-untyped-call]
        history.append(float(loss.detach()))
        return loss

    if verbose:
        with torch.no_grad():
            start = torch.mean((stress_xx(model, solver, y0, forces, adjoint=False) - data) ** 2)
        vals = "  ".join(f"{n} = {float(getattr(model, n).detach()):.6g}" for n in FIT)
        print(f"start      loss {float(start / scale**2):.4e}  {vals}", flush=True)
    last = float("inf")
    for epoch in range(epochs):
        opt.step(closure)  # type: ignore[no-untyped-call]
        loss = history[-1]  # at the accepted point (L-BFGS evaluates it last)
        if verbose:
            vals = "  ".join(f"{n} = {float(getattr(model, n).detach()):.6g}" for n in FIT)
            print(f"epoch {epoch:3d}  loss {loss:.4e}  {vals}", flush=True)
        if loss >= last:
            break  # converged: L-BFGS made no further progress
        last = loss
    out = {n: (float(true[n]), float(getattr(model, n).detach())) for n in FIT}
    if verbose:
        for n, (t, f) in out.items():
            print(f"{n}: true {t:.6g}  fitted {f:.6g}  error {abs(f / t - 1) * 100:.3f} %")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40, help="time steps per ramp")
    ap.add_argument("--epochs", type=int, default=15, help="L-BFGS epochs (max)")
    ap.add_argument("--perturb", type=float, default=1.3, help="initial guess / true value")
    args = ap.parse_args(argv)
    res = calibrate(steps=args.steps, epochs=args.epochs, perturb=args.perturb)
    ok = all(abs(f / t - 1) < 0.01 for t, f in res.values())
    print("recovered within 1 %" if ok else "NOT recovered within 1 %")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
