"""Perzyna viscoplasticity examples against independent references (numpy/scipy, float64).

* stress-controlled creep (Perzyna + Voce): the whole history vs the scalar backward-Euler
  integration of ``j2_reference.py``, and the steady-state creep rate
  :math:`\\dot\\varepsilon = \\sqrt{2/3}\\,(\\sqrt{2/3}(\\sigma - s_y - R)/\\eta)^n`;
* Chaboche: under monotonic uniaxial straining without static recovery each back stress
  saturates at :math:`X_{xx} = \\tfrac23 (C/g) N_{xx}`, :math:`N_{xx} = \\sqrt{2/3}` (the
  normal of :math:`f = \\sqrt{2/3}(\\sigma_{vm} - s_y - h)`), :math:`X_{yy} = X_{zz} = -X_{xx}/2`;
  the Voce hardening saturates at R;
* Chaboche (cyclic, with static recovery) and GTN: the whole histories vs the independent
  backward-Euler integrations of ``implicit_reference.py`` (numpy residuals, scipy ``fsolve``).

All within 1e-6 relative over the 100-step histories; they verify the algorithm, so they always
run in float64.
"""

from __future__ import annotations

import example_history as run
import implicit_reference
import j2_reference as ref
import numpy as np

VISCO = run.EXAMPLES / "viscoplasticity"
COVERED_TYPES = {"PerzynaPlasticFlowRate", "ChabochePlasticHardening", "VoceIsotropicHardening"}


def test_perzyna_creep_history_and_steady_rate() -> None:
    path = VISCO / "creep_stress_control.i"
    p = run.params(path)
    h = run.history(path)
    t, sxx = h["t"], h["stress"][..., 0]
    for b in range(sxx.shape[1]):
        ebar = ref.perzyna_creep(t[:, b], sxx[:, b], p["sy"], p["R"], p["d"], p["eta"], p["n"])
        run.assert_history(h["equivalent_plastic_strain"][:, b], ebar)
        run.assert_history(h["strain"][:, b, 0], sxx[:, b] / p["E"] + ebar)
        run.assert_history(h["strain"][:, b, 1], -p["nu"] * sxx[:, b] / p["E"] - ebar / 2)
    c = np.sqrt(2 / 3)
    steady = c * (c * (sxx[-1] - p["sy"] - p["R"]) / p["eta"]) ** p["n"]
    rate = (h["strain"][-1, :, 0] - h["strain"][-2, :, 0]) / (t[-1] - t[-2])
    np.testing.assert_allclose(rate, steady, rtol=1e-6)
    assert np.all(steady > 1e-3)


def test_chaboche_back_stress_saturation() -> None:
    path = VISCO / "chaboche.i"
    p = run.params(path)
    strains = "Tensors/strains/expr:='SR2(torch.nn.functional.pad((0.4 * times.data)[..., None], (0, 5)))'"
    h = run.history(path, ["A1:=0.0", "A2:=0.0", strains])
    nxx = np.sqrt(2 / 3)
    for i in (1, 2):
        x = h[f"X{i}"]
        sat = 2 / 3 * p[f"C{i}"] / p[f"g{i}"] * nxx
        np.testing.assert_allclose(x[-1, :, 0], sat, rtol=1e-6)
        np.testing.assert_allclose(x[-1, :, 1:3], -sat / 2, rtol=1e-6)
        np.testing.assert_allclose(x[-1, :, 3:], 0.0, atol=1e-12)
        assert np.all(np.diff(x[:, :, 0], axis=0) >= -1e-9 * sat)  # monotonic approach
        assert np.all(x[1, :, 0] < 0.99 * sat)  # from below, not in one step
    ebar = h["equivalent_plastic_strain"][-1]
    np.testing.assert_allclose(p["R"] * (1 - np.exp(-p["d"] * ebar)), p["R"], rtol=1e-6)


def test_chaboche_cyclic_history_vs_scipy_backward_euler() -> None:
    path = VISCO / "chaboche.i"
    p = run.params(path)
    h = run.history(path)
    residual = implicit_reference.chaboche(p)
    scale = np.r_[np.full(6, 100.0), 1e-3, np.full(12, 10.0)]
    for b in range(h["strain"].shape[1]):
        y = implicit_reference.integrate(
            residual, h["t"][:, b], h["strain"][:, b], np.zeros(19), scale
        )
        run.assert_history(h["stress"][:, b], y[:, :6])
        run.assert_history(h["equivalent_plastic_strain"][:, b], y[:, 6])
        run.assert_history(h["X1"][:, b], y[:, 7:13])
        run.assert_history(h["X2"][:, b], y[:, 13:19])
    assert np.abs(h["X2"]).max() > 5  # both back stresses are active


def test_gtn_history_vs_scipy_backward_euler() -> None:
    path = VISCO / "gurson.i"
    p = run.params(path)
    h = run.history(path)
    residual = implicit_reference.gtn(p)
    scale = np.r_[np.full(6, 100.0), 1e-2]
    for b in range(h["strain"].shape[1]):
        y0 = np.r_[np.zeros(6), h["void_fraction"][0, b]]
        y = implicit_reference.integrate(residual, h["t"][:, b], h["strain"][:, b], y0, scale)
        run.assert_history(h["stress"][:, b], y[:, :6])
        run.assert_history(h["void_fraction"][:, b], y[:, 6])
    assert np.all(h["void_fraction"][-1] > 1.5 * h["void_fraction"][0])  # voids grow
