r"""
Stress-strain response of a viscoplastic model
==============================================

Load a NEML2 input file, run its transient driver from Python and plot the stress-strain loops.

The model, ``examples/viscoplasticity/chaboche.i``, is J2 viscoplasticity: a Perzyna flow rule,
Voce isotropic hardening and two Chaboche back stresses, integrated in time with backward Euler
(an ``ImplicitUpdate`` solved by Newton's method at every step). The driver applies two fully
reversed cycles of uniaxial strain, :math:`\varepsilon_{xx}(t) = \varepsilon_{\max} \sin(\pi t)`,
to a batch of two material points with :math:`\varepsilon_{\max}` = 0.5 % and 1 %.
"""

# %%
# Run the driver
# --------------
# :func:`neml2.load_input` parses the file once; the driver named ``driver`` owns the model and
# the prescribed loading. ``run()`` integrates all steps and records every step's inputs and
# outputs.
from pathlib import Path

import matplotlib.pyplot as plt
import torch

import neml2


def repository_root() -> Path:
    """The checkout holding ``examples/`` (the tutorials run from ``docs/``)."""
    here = Path.cwd().resolve()
    return next(p for p in (here, *here.parents) if (p / "examples").is_dir())


EXAMPLE = repository_root() / "examples" / "viscoplasticity" / "chaboche.i"
inp = neml2.load_input(EXAMPLE)
driver = inp.get_driver("driver")
driver.run()
result = driver.result()

# %%
# The recorded history
# --------------------
# ``result()`` maps ``input.<step>.<variable>`` and ``output.<step>.<variable>`` to tensors of
# shape ``(batch, *base)``. Stresses and strains are symmetric second-order tensors (``SR2``)
# stored as six Mandel components, ``xx yy zz`` first.
nsteps = max(int(key.split(".")[1]) for key in result if key.startswith("output."))
strain = torch.stack([result[f"input.{k}.strain"] for k in range(1, nsteps + 1)]).detach()
stress = torch.stack([result[f"output.{k}.stress"] for k in range(1, nsteps + 1)]).detach()
ep = torch.stack(
    [result[f"output.{k}.equivalent_plastic_strain"] for k in range(1, nsteps + 1)]
).detach()
print(f"{nsteps} steps, batch of {strain.shape[1]}: strain {tuple(strain.shape)}")
print(f"equivalent plastic strain at the end: {ep[-1].tolist()}")

# %%
# An independent check: the volumetric response
# ---------------------------------------------
# J2 plastic flow is deviatoric, so the pressure stays elastic at every step whatever the
# hardening does: :math:`\operatorname{tr} \sigma = 3 K \operatorname{tr} \varepsilon` with the
# bulk modulus :math:`K = E / (3 (1 - 2 \nu))`. The input file uses :math:`E` = 200 GPa (in MPa)
# and :math:`\nu` = 0.3. The plot below also shows the elastic slope of uniaxial strain,
# :math:`\sigma_{xx} = \frac{E (1 - \nu)}{(1 + \nu)(1 - 2 \nu)} \varepsilon_{xx}`.
E, nu = 200000.0, 0.3
K = E / (3 * (1 - 2 * nu))
M = E * (1 - nu) / ((1 + nu) * (1 - 2 * nu))  # the uniaxial-strain (P-wave) modulus
trace = stress[..., :3].sum(-1)
err_p = (trace - 3 * K * strain[..., :3].sum(-1)).abs().max().item()
print(f"largest deviation of tr(stress) from 3 K tr(strain) over all steps: {err_p:.2e} MPa")
# the Newton tolerance bounds the error of every step's solve
assert err_p < 1e-8 * trace.abs().max().item()

# %%
# Stress-strain loops
# -------------------
# The loops show the Bauschinger effect (the back stresses shift the elastic domain after load
# reversal) and the hardening saturating from the first cycle to the second.
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
for b, label in enumerate(["0.5 %", "1 %"]):
    ax1.plot(100 * strain[:, b, 0], stress[:, b, 0], label=f"amplitude {label}")
    ax2.plot(torch.arange(1, nsteps + 1), ep[:, b], label=f"amplitude {label}")
emax = 100 * float(strain[..., 0].abs().max())
e_line = torch.linspace(-0.1, 0.1, 2)
ax1.plot(e_line, M * e_line / 100, "k--", lw=0.8, label="elastic slope")
ax1.set(xlabel=r"$\varepsilon_{xx}$ [%]", ylabel=r"$\sigma_{xx}$ [MPa]", xlim=(-emax, emax))
ax1.set_ylim(1.3 * stress[..., 0].min().item(), 1.3 * stress[..., 0].max().item())
ax2.set(xlabel="step", ylabel="equivalent plastic strain")
for ax in (ax1, ax2):
    ax.legend()
    ax.grid(alpha=0.3)
plt.show()
