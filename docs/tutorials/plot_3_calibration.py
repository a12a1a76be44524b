r"""
Calibrating parameters with pyzag
=================================

Fit two parameters of a viscoplastic model to stress histories, with gradients of the whole
time integration from pyzag's adjoint.

The model, ``examples/calibration/calibrate_perzyna.i``, is J2 viscoplasticity with a Perzyna
flow rule (reference stress :math:`\eta`, ``flow_rate_eta``) and linear isotropic hardening
(modulus :math:`K`, ``isoharden_K``), written as a nonlinear system per time step. The data are
synthetic: uniaxial strain ramps at three strain rates, integrated with the true parameters. The
fit starts 30 % off and minimizes the mean squared stress error

.. math::

   L(\eta, K) = \frac{1}{N} \sum_{k, b}
   \frac{(\sigma_{xx}^{k b}(\eta, K) - \hat\sigma_{xx}^{k b})^2}{\hat\sigma_{\max}^2}

over steps :math:`k` and ramps :math:`b` with L-BFGS.
"""

# %%
# The building blocks
# -------------------
# The example script ``examples/calibration/calibrate_perzyna.py`` holds the pieces this
# tutorial uses: :func:`neml2.load_nonlinear_system` reads the per-step system, and
# ``neml2.pyzag.NEML2PyzagModel`` exposes it to pyzag's recursive solver, mirroring only the two
# parameters we fit as torch parameters.
#
# .. literalinclude:: ../../../examples/calibration/calibrate_perzyna.py
#    :pyobject: make_solver
#
# The loading: strain ramps to 2 % at each rate, as pyzag "forces".
#
# .. literalinclude:: ../../../examples/calibration/calibrate_perzyna.py
#    :pyobject: loading
import sys
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import torch


def repository_root() -> Path:
    """The checkout holding ``examples/`` (the tutorials run from ``docs/``)."""
    here = Path.cwd().resolve()
    return next(p for p in (here, *here.parents) if (p / "examples").is_dir())


sys.path.insert(0, str(repository_root() / "examples" / "calibration"))
import calibrate_perzyna as example  # noqa: E402

# pyzag notes once that it changes a torch.compile default; it does not matter here
warnings.filterwarnings("ignore", message="pyzag lowered", category=UserWarning)

# %%
# The data and the starting guess
# -------------------------------
rates = [1e-4, 1e-3, 1e-2]
steps = 20
model, solver = example.make_solver(block_size=5)
y0, forces = example.loading(model, steps, rates)
true = {name: float(getattr(model, name).detach()) for name in example.FIT}
data = example.stress_xx(model, solver, y0, forces, adjoint=False)
with torch.no_grad():
    for name in example.FIT:
        getattr(model, name).mul_(1.3)
start = example.stress_xx(model, solver, y0, forces, adjoint=False)
print("true parameters:", true)

# %%
# Calibrate
# ---------
# ``calibrate`` builds the same model, rescales the parameters to [0, 1] with pyzag's
# ``RangeRescale``, and runs L-BFGS; every loss evaluation integrates all steps with the adjoint.
#
# .. literalinclude:: ../../../examples/calibration/calibrate_perzyna.py
#    :pyobject: calibrate
#    :end-before: if verbose:
fitted = example.calibrate(steps=steps, rates=rates, perturb=1.3)
# the data are exact model output: the fit recovers the parameters to the optimizer's precision
for name, (t, f) in fitted.items():
    assert abs(f / t - 1) < 1e-3, f"{name} not recovered: {f} instead of {t}"

# %%
# Data, starting guess and fit
# ----------------------------
with torch.no_grad():
    for name, (_, value) in fitted.items():
        getattr(model, name).fill_(value)
fit = example.stress_xx(model, solver, y0, forces, adjoint=False).detach()
data, start = data.detach(), start.detach()
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
steps_axis = torch.arange(steps + 1)
for b, rate in enumerate(rates):
    (line,) = ax1.plot(steps_axis, data[:, b], "o", ms=4, label=f"data, rate {rate:g}/s")
    ax1.plot(steps_axis, start[:, b], ":", color=line.get_color())
    ax1.plot(steps_axis, fit[:, b], "-", color=line.get_color())
    ax2.semilogy(steps_axis[1:], (start[1:, b] - data[1:, b]).abs(), ":", color=line.get_color())
    ax2.semilogy(steps_axis[1:], (fit[1:, b] - data[1:, b]).abs().clamp_min(1e-16), "-",
                 color=line.get_color(), label=f"rate {rate:g}/s")  # fmt: skip
ax1.set(xlabel="step (strain grows linearly to 2 %)", ylabel=r"$\sigma_{xx}$ [MPa]",
        title="dots: data, dotted: start (+30 %), lines: fit")  # fmt: skip
ax2.set(xlabel="step", ylabel=r"$|\sigma_{xx} - \hat\sigma_{xx}|$ [MPa]",
        title="stress error, dotted: start, lines: fit")  # fmt: skip
for ax in (ax1, ax2):
    ax.legend()
    ax.grid(alpha=0.3)
plt.show()
