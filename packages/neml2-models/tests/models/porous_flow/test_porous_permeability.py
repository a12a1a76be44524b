"""Effective saturation and the permeability laws: values against numpy formulas, derivatives
(harness), K(phi0) = K0, Kozeny-Carman's forms and construction checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model


def _hit(type_: str, options: str = "") -> str:
    """``[Models/model]`` of type ``type_`` with ``options`` as its body."""
    return f"[Models]\n  [model]\n    type = {type_}\n    {options}\n  []\n[]\n"


RNG = np.random.default_rng(47)
N = 7
PHI = RNG.uniform(0.05, 0.6, N)
K0, PHI0 = 2.5e-12, 0.3


def _perm(type_: str, extra: str) -> str:
    return _hit(type_, f"reference_permeability = {K0!r}\n    reference_porosity = {PHI0}\n    "
                + extra)  # fmt: skip


def power(phi: Any, p: float) -> Any:
    return K0 * (phi / PHI0) ** p


def expo(phi: Any, a: float) -> Any:
    return K0 * np.exp(-a * (phi - PHI0))


def kozeny(phi: Any, n: float, m: float) -> Any:
    return K0 * (phi / (1 - phi)) ** n / (PHI0 / (1 - PHI0)) ** m


SAT = "residual_saturation = 0.15\n    max_fraction = "
CASES = [
    ModelCase("porous-effective-saturation", _hit("EffectiveSaturation", SAT + "0.8"),
              {"fluid_fraction": PHI},
              lambda x: {"effective_saturation": (x["fluid_fraction"] / 0.8 - 0.15) / 0.85}),
    ModelCase("porous-effective-saturation-promoted",
              _hit("EffectiveSaturation", SAT + "'phimax'"),
              {"fluid_fraction": PHI, "phimax": RNG.uniform(0.6, 0.9, (1,))},
              lambda x: {"effective_saturation":
                         (x["fluid_fraction"] / x["phimax"] - 0.15) / 0.85}),
    ModelCase("porous-power-law", _perm("PowerLawPermeability", "exponent = 3.5"),
              {"porosity": PHI}, lambda x: {"permeability": power(x["porosity"], 3.5)},
              atol=0.0, atol32=0.0),
    ModelCase("porous-exponential-law", _perm("ExponentialLawPermeability", "scale = 4"),
              {"porosity": PHI}, lambda x: {"permeability": expo(x["porosity"], 4.0)},
              atol=0.0, atol32=0.0),
    ModelCase("porous-kozeny-carman", _perm("KozenyCarmanPermeability", "n = 3\n    m = 2"),
              {"porosity": PHI}, lambda x: {"permeability": kozeny(x["porosity"], 3.0, 2.0)},
              atol=0.0, atol32=0.0),
    ModelCase("porous-kozeny-carman-renamed",
              _perm("KozenyCarmanPermeability", "n = 2.5\n    m = 1.5\n    porosity = f\n"
                    "    permeability = k"),
              {"f": PHI}, lambda x: {"k": kozeny(x["f"], 2.5, 1.5)}, atol=0.0, atol32=0.0),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_porous_permeability(case: ModelCase, dtype: torch.dtype, device: Any) -> None:
    check_model(case, dtype=dtype, device=device)


def _K(hit: str, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = load_string(hit, dtype=torch.float64).get_model("model")
    out, J = m.jacobian({"porosity": torch.tensor(phi, dtype=torch.float64)})
    return (out["permeability"].data.detach().numpy(),
            J["permeability"]["porosity"].data.detach().numpy())  # fmt: skip


LAWS = [
    _perm("PowerLawPermeability", "exponent = 3.5"),
    _perm("ExponentialLawPermeability", "scale = 4"),
    _perm("KozenyCarmanPermeability", "n = 2\n    m = 2"),
]


@pytest.mark.parametrize("hit", LAWS)
def test_reference_point(hit: str) -> None:
    K, _ = _K(hit, np.array([PHI0]))
    assert K[0] == pytest.approx(K0, rel=1e-14)


def test_kozeny_carman_forms() -> None:
    phi = np.linspace(0.05, 0.6, 12)
    # n = m: K0 (e / e0)^n with the void ratio e = phi / (1 - phi); at n = 3 that is
    # K0 phi^3 (1 - phi0)^3 / ((1 - phi)^3 phi0^3)
    K, dK = _K(_perm("KozenyCarmanPermeability", "n = 3\n    m = 3"), phi)
    ref = K0 * phi**3 * (1 - PHI0) ** 3 / ((1 - phi) ** 3 * PHI0**3)
    np.testing.assert_allclose(K, ref, rtol=1e-13)
    # d/dphi by hand: 3 K / (phi (1 - phi))
    np.testing.assert_allclose(dK, 3 * ref / (phi * (1 - phi)), rtol=1e-13)
    # n != m: K(phi0) = K0 e0^(n - m); the classical phi^3 / (1 - phi)^2 (Carman 1937) is
    # the ratio K(phi) / K(phi0) with n = 3 times (1 - phi): K_v3 (1 - phi) / K_v3(phi0)
    K, _ = _K(_perm("KozenyCarmanPermeability", "n = 3\n    m = 2"), np.append(phi, PHI0))
    assert K[-1] == pytest.approx(K0 * PHI0 / (1 - PHI0), rel=1e-14)
    classical = phi**3 / (1 - phi) ** 2 / (PHI0**3 / (1 - PHI0) ** 2)
    np.testing.assert_allclose(K[:-1] * (1 - phi) / (K[-1] * (1 - PHI0)), classical, rtol=1e-13)


def test_power_and_exponential_derivatives_by_hand() -> None:
    phi = np.linspace(0.05, 0.6, 12)
    K, dK = _K(_perm("PowerLawPermeability", "exponent = 3.5"), phi)
    np.testing.assert_allclose(dK, 3.5 * K / phi, rtol=1e-13)
    K, dK = _K(_perm("ExponentialLawPermeability", "scale = 4"), phi)
    np.testing.assert_allclose(dK, -4.0 * K, rtol=1e-13)


@pytest.mark.parametrize(
    ("hit", "option"),
    [
        (_hit("EffectiveSaturation", "residual_saturation = -0.1\n    max_fraction = 1"),
         "residual_saturation"),
        (_hit("EffectiveSaturation", "residual_saturation = 1\n    max_fraction = 1"),
         "residual_saturation"),
        (_hit("EffectiveSaturation", "residual_saturation = 0.1\n    max_fraction = 0"),
         "max_fraction"),
        (_hit("EffectiveSaturation", "residual_saturation = 0.1\n    max_fraction = -1"),
         "max_fraction"),
        (_hit("PowerLawPermeability", "reference_permeability = 0\n    reference_porosity = 0.3"
              "\n    exponent = 3"), "reference_permeability"),
        (_hit("PowerLawPermeability", "reference_permeability = 1\n    reference_porosity = 0"
              "\n    exponent = 3"), "reference_porosity"),
        (_hit("ExponentialLawPermeability", "reference_permeability = -1\n    "
              "reference_porosity = 0.3\n    scale = 3"), "reference_permeability"),
        (_hit("ExponentialLawPermeability", "reference_permeability = 1\n    "
              "reference_porosity = -0.3\n    scale = 3"), "reference_porosity"),
        (_hit("KozenyCarmanPermeability", "reference_permeability = 0\n    "
              "reference_porosity = 0.3\n    n = 3\n    m = 2"), "reference_permeability"),
        (_hit("KozenyCarmanPermeability", "reference_permeability = 1\n    "
              "reference_porosity = 1\n    n = 3\n    m = 2"), "reference_porosity"),
        (_hit("KozenyCarmanPermeability", "reference_permeability = 1\n    "
              "reference_porosity = 0\n    n = 3\n    m = 2"), "reference_porosity"),
    ],
)  # fmt: skip
def test_permeability_bad_input(hit: str, option: str) -> None:
    f = load_string(hit)
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        f.get_model("model")
