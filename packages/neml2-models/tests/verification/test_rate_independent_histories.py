"""Rate-independent J2 examples against independent return mappings (numpy, float64).

* uniaxial-strain examples (perfect, isotropic, kinematic, combined/FB, radial return,
  temperature-dependent yield) vs the 3D radial return of ``j2_reference.py``;
* the mixed-control example (uniaxial stress) vs closed forms: the perfect-plasticity plateau
  at the yield stress, the linear isotropic hardening line
  :math:`\\sigma = s_y + \\frac{E K}{E + K}(\\varepsilon - s_y/E)`, and the Bauschinger
  reverse yield at :math:`\\sigma_{max} - 2 s_y` for linear kinematic hardening, plus the whole
  history vs the 1D return mapping.

The 1e-6 checks verify the algorithm, so they always run in float64.
"""

from __future__ import annotations

import example_history as run
import j2_reference as ref
import numpy as np
import pytest

PLASTICITY = run.EXAMPLES / "plasticity"
COVERED_TYPES = {
    "MinMapComplementarity",
    "FBComplementarity",
    "LinearIsotropicElasticJ2TrialStressUpdate",
    "MixedControlSetup",
    "ArrheniusParameter",
}


@pytest.mark.parametrize(
    ("name", "hardening"),
    [
        ("perfect", ()),
        ("isoharden", ("K",)),
        ("kinharden", ("H",)),
        ("combined", ("K", "H")),
        ("radial_return", ("K",)),
    ],
)
def test_uniaxial_strain_vs_radial_return(name: str, hardening: tuple[str, ...]) -> None:
    path = PLASTICITY / f"{name}.i"
    p = run.params(path)
    h = run.history(path)
    want = ref.radial_return(h["strain"], p["E"], p["nu"], p["sy"], **{k: p[k] for k in hardening})
    run.assert_history(h["stress"], want["stress"])
    if "equivalent_plastic_strain" in h:
        run.assert_history(h["equivalent_plastic_strain"], want["ep"])
    assert want["ep"][-1].min() > 0  # the history is plastic
    if "H" in hardening:  # X = H Kp with Kp = plastic strain
        run.assert_history(h["kinematic_plastic_strain"], want["Ep"])
    if name == "radial_return":
        run.assert_history(h["plastic_strain"], want["Ep"])


def test_temperature_dependent_yield() -> None:
    path = PLASTICITY / "perfect_temperature.i"
    p = run.params(path)
    h = run.history(path)
    sy = p["sy0"] * np.exp(-p["Q"] / (p["R"] * h["T"]))
    assert sy.max() > 1.5 * sy.min()  # the yield stress really changes
    want = ref.radial_return(h["strain"], p["E"], p["nu"], sy)
    run.assert_history(h["stress"], want["stress"])
    s = h["stress"]
    vm = np.abs(s[..., 0] - s[..., 1])  # uniaxial strain: sigma_vm = |s_xx - s_yy|
    plastic = h["flow_rate"] > 0
    assert plastic.sum() > 20
    np.testing.assert_allclose(vm[plastic], sy[plastic], rtol=1e-8)


def _mixed(overrides: list[str]) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    path = PLASTICITY / "mixed_control.i"
    return run.params(path), run.history(path, overrides)


def _uniaxial_stress_state(h: dict[str, np.ndarray]) -> None:
    np.testing.assert_allclose(h["stress"][..., 1:], 0.0, atol=1e-9)
    np.testing.assert_allclose(h["strain"][..., 0], h["fixed_values"][..., 0], rtol=0, atol=0)


def test_mixed_control_perfect_plateau() -> None:
    p, h = _mixed(["K:=0.0", "H:=0.0"])
    _uniaxial_stress_state(h)
    sxx, exx = h["stress"][..., 0], h["strain"][..., 0]
    plastic = h["flow_rate"] > 0
    assert plastic.sum() > 40
    np.testing.assert_allclose(np.abs(sxx[plastic]), p["sy"], rtol=1e-10)
    run.assert_history(sxx, ref.uniaxial_return(exx, p["E"], p["sy"]))


def test_mixed_control_linear_isotropic_closed_form() -> None:
    p, h = _mixed(["H:=0.0"])
    _uniaxial_stress_state(h)
    E, sy, K = p["E"], p["sy"], p["K"]
    sxx, exx = h["stress"][..., 0], h["strain"][..., 0]
    first = slice(0, 26)  # monotonic loading up to the peak strain (t = 1/4)
    closed = np.where(
        exx[first] > sy / E, sy + E * K / (E + K) * (exx[first] - sy / E), E * exx[first]
    )
    run.assert_history(sxx[first], closed)
    run.assert_history(sxx, ref.uniaxial_return(exx, E, sy, K=K))
    run.assert_history(
        h["equivalent_plastic_strain"][first], np.maximum(exx[first] - sxx[first] / E, 0)
    )


def test_mixed_control_kinematic_bauschinger() -> None:
    p, h = _mixed(["K:=0.0"])
    _uniaxial_stress_state(h)
    E, sy, Hk = p["E"], p["sy"], 1.5 * p["H"]
    sxx, exx = h["stress"][..., 0], h["strain"][..., 0]
    run.assert_history(sxx, ref.uniaxial_return(exx, E, sy, Hk=Hk))
    # unloading from the peak is elastic until sigma = sigma_max - 2 sy (Bauschinger)
    smax = sxx[25]
    np.testing.assert_allclose(smax, sy + E * Hk / (E + Hk) * (exx[25] - sy / E), rtol=1e-8)
    flow = h["flow_rate"]
    for b in range(sxx.shape[1]):
        k = 26 + int(np.argmax(flow[26:, b] > 0))  # first reverse-plastic step
        assert np.all(flow[26:k, b] == 0)
        np.testing.assert_allclose(
            sxx[26:k, b], smax[b] + E * (exx[26:k, b] - exx[25, b]), rtol=1e-9
        )
        assert sxx[k - 1, b] > smax[b] - 2 * sy > sxx[k, b]
        back = h["kinematic_plastic_strain"][k, b, 0] * p["H"] * 1.5
        np.testing.assert_allclose(sxx[k, b], back - sy, rtol=1e-8)  # on the reversed surface
