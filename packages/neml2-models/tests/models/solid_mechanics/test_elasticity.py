"""Elasticity: LinearIsotropicElasticity, Isotropic/CubicElasticityTensor, GeneralElasticity,
GreenLagrangeStrain — values vs numpy, derivatives vs autograd / finite differences."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(11)
S2 = np.sqrt(2.0)
I6 = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
IVOL = np.outer(I6, I6) / 3.0
IDEV = np.eye(6) - IVOL


def _hit(t: str, opts: str) -> str:
    return f"[Models]\n  [model]\n    type = {t}\n    {opts}\n  []\n[]\n"


def _KG(E: Any, nu: Any) -> tuple[Any, Any]:
    """Bulk and shear moduli from Young's modulus and Poisson's ratio (textbook formulas)."""
    return E / (3 * (1 - 2 * nu)), E / (2 * (1 + nu))


def _stress(strain: np.ndarray, K: Any, G: Any) -> Any:
    c = 3 * np.asarray(K)[..., None, None] * IVOL + 2 * np.asarray(G)[..., None, None] * IDEV
    return np.einsum("...ij,...j->...i", c, strain)


def _strain(stress: np.ndarray, K: Any, G: Any) -> Any:
    """Compliance by solving the (batched) stiffness system."""
    c = 3 * np.asarray(K)[..., None, None] * IVOL + 2 * np.asarray(G)[..., None, None] * IDEV
    c = np.broadcast_to(c, (*stress.shape[:-1], 6, 6))
    return np.linalg.solve(c, stress[..., None])[..., 0]


def _lie(opts: str) -> str:
    return _hit("LinearIsotropicElasticity", opts)


EPS = RNG.normal(size=(4, 6)) * 1e-3
# One consistent material (E = 200e3, nu = 0.3) expressed in every isotropic constant; each of the
# 15 pairs must reproduce the same stiffness.
_E, _NU = 2e5, 0.3
_K, _G = _E / (3 * (1 - 2 * _NU)), _E / (2 * (1 + _NU))
CONSTANTS = {
    "YOUNGS_MODULUS": _E, "POISSONS_RATIO": _NU, "BULK_MODULUS": _K, "SHEAR_MODULUS": _G,
    "LAME_LAMBDA": _K - 2 * _G / 3, "P_WAVE_MODULUS": _K + 4 * _G / 3,
}  # fmt: skip
PAIRS = list(itertools.combinations(CONSTANTS, 2))


def _pair_case(t1: str, t2: str) -> ModelCase:
    a, b = CONSTANTS[t1], CONSTANTS[t2]
    return ModelCase(
        f"lie-{t1}-{t2}",
        _lie(f"coefficients = '{a!r} {b!r}'\n    coefficient_types = '{t1} {t2}'"),
        {"strain": EPS},
        lambda x: {"stress": _stress(x["strain"], _K, _G)},
    )


CASES = [_pair_case(*p) for p in PAIRS] + [
    ModelCase(
        "lie-rate-form",
        _lie("coefficients = '1e5 0.25'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"
             "\n    strain = 'elastic_strain'\n    rate_form = true"),
        {"elastic_strain_rate": EPS},
        lambda x: {"stress_rate": _stress(x["elastic_strain_rate"], *_KG(1e5, 0.25))},
    ),
    ModelCase(
        "lie-compliance",
        _lie("coefficients = '1e5 0.25'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"
             "\n    compliance = true"),
        {"stress": RNG.normal(size=(3, 6)) * 100},
        lambda x: {"strain": _strain(x["stress"], *_KG(1e5, 0.25))},
    ),
    ModelCase(
        "lie-promoted",
        _lie("coefficients = 'E nu'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"),
        {"strain": EPS, "E": RNG.uniform(1e5, 2e5, 4), "nu": RNG.uniform(0.1, 0.4, 4)},
        lambda x: {"stress": _stress(x["strain"], *_KG(x["E"], x["nu"]))},
        fd_rtol=1e-5,
    ),
    ModelCase(
        "lie-promoted-compliance",
        _lie("coefficients = 'K G'\n    coefficient_types = 'BULK_MODULUS SHEAR_MODULUS'"
             "\n    compliance = true"),
        {"stress": RNG.normal(size=(4, 6)), "K": RNG.uniform(1, 2, 4), "G": RNG.uniform(1, 2, 4)},
        lambda x: {"strain": _strain(x["stress"], x["K"], x["G"])},
    ),
    ModelCase(
        "isotropic-tensor",
        _hit("IsotropicElasticityTensor",
             "coefficients = '200e3 0.3'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"),
        {},
        lambda x: {"model": 3 * _KG(2e5, 0.3)[0] * IVOL
                   + 2 * _KG(2e5, 0.3)[1] * IDEV},
    ),
    ModelCase(
        "isotropic-tensor-promoted",
        _hit("IsotropicElasticityTensor",
             "coefficients = 'K 70'\n    coefficient_types = 'BULK_MODULUS SHEAR_MODULUS'\n"
             "    C = 'stiff'"),
        {"K": RNG.uniform(100, 200, 3)},
        lambda x: {"stiff": 3 * x["K"][:, None, None] * IVOL + 140 * IDEV},
    ),
    ModelCase(
        "cubic-tensor",
        _hit("CubicElasticityTensor",
             "coefficients = '0.3 200 60'\n"
             "    coefficient_types = 'POISSONS_RATIO YOUNGS_MODULUS SHEAR_MODULUS'"),
        {},
        lambda x: {"model": _cubic(200.0, 0.3, 60.0)},
    ),
    ModelCase(
        "cubic-tensor-promoted",
        _hit("CubicElasticityTensor",
             "coefficients = 'E nu G'\n"
             "    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO SHEAR_MODULUS'"),
        {"E": RNG.uniform(100, 200, 2), "nu": RNG.uniform(0.1, 0.4, 2), "G": RNG.uniform(50, 60, 2)},
        lambda x: {"model": np.stack([_cubic(e, n, g) for e, n, g in zip(x["E"], x["nu"], x["G"], strict=True)])},
    ),
]  # fmt: skip


def _cubic(E: float, nu: float, G: float) -> Any:
    """Voigt cubic stiffness (C11, C12, C44 = G) converted to Mandel."""
    den = (1 + nu) * (1 - 2 * nu)
    c = np.zeros((6, 6))
    c[:3, :3] = E * nu / den
    np.fill_diagonal(c[:3, :3], E * (1 - nu) / den)
    c[3:, 3:] = np.eye(3) * G
    w = np.array([1, 1, 1, S2, S2, S2])
    return c * np.outer(w, w)


def _mrp_matrix(r: np.ndarray) -> Any:
    """Rotation matrix of MRPs through the unit quaternion ((1-|r|^2), 2r)/(1+|r|^2)."""
    s = (r**2).sum(-1)
    w = (1 - s) / (1 + s)
    x, y, z = (2 * r[..., i] / (1 + s) for i in range(3))
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    return np.stack([np.stack(r_, -1) for r_ in rows], -2)


def _to_mat(a: np.ndarray) -> Any:
    m = np.zeros((*a.shape[:-1], 3, 3))
    for i in range(3):
        m[..., i, i] = a[..., i]
    for k, (i, j) in zip((3, 4, 5), ((1, 2), (0, 2), (0, 1)), strict=True):
        m[..., i, j] = m[..., j, i] = a[..., k] / S2
    return m


def _from_mat(m: np.ndarray) -> Any:
    s = 0.5 * (m + np.swapaxes(m, -1, -2))
    return np.stack([s[..., 0, 0], s[..., 1, 1], s[..., 2, 2],
                     S2 * s[..., 1, 2], S2 * s[..., 0, 2], S2 * s[..., 0, 1]], -1)  # fmt: skip


def _general(x: dict[str, np.ndarray], c: np.ndarray) -> dict[str, np.ndarray]:
    """sigma = R (C_crystal : (R^T eps R)) R^T, all in full 3x3 form."""
    R = _mrp_matrix(x["orientation"])
    eps_c = np.einsum("...ji,...jk,...kl->...il", R, _to_mat(x["strain"]), R)
    sig_c = np.einsum("ij,...j->...i", c, _from_mat(eps_c))
    return {"stress": _from_mat(np.einsum("...ij,...jk,...lk->...il", R, _to_mat(sig_c), R))}


CUBIC = _cubic(200.0, 0.3, 60.0)
GENERAL_HIT = """
[Tensors]
  [C]
    type = Python
    expr = 'SSR4.cubic(269.2307692307692, 115.38461538461539, 120.0)'
  []
[]
[Models]
  [model]
    type = GeneralElasticity
    elastic_stiffness_tensor = 'C'
  []
[]
"""
F = np.eye(3) + 0.1 * RNG.normal(size=(3, 3, 3))
CASES += [
    ModelCase(
        "lie-tensors-coefficient",
        "[Tensors]\n  [E]\n    type = Python\n    expr = 'Scalar([1e5, 2e5, 3e5])'\n  []\n[]\n"
        + _lie("coefficients = 'E 0.3'\n    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'"),
        {"strain": RNG.normal(size=(3, 6)) * 1e-3},
        lambda x: {"stress": _stress(x["strain"], *_KG(np.array([1e5, 2e5, 3e5]), 0.3))},
    ),
    ModelCase(
        "general",
        GENERAL_HIT,
        {"strain": RNG.normal(size=(3, 6)) * 1e-2, "orientation": RNG.uniform(-0.5, 0.5, (3, 3))},
        lambda x: _general(x, CUBIC),
    ),
    ModelCase(
        "general-promoted",
        _hit("GeneralElasticity", "elastic_stiffness_tensor = 'T'"),
        {"strain": RNG.normal(size=(2, 6)) * 1e-2, "orientation": RNG.uniform(-0.5, 0.5, (2, 3)),
         "T": np.stack([CUBIC, 2 * CUBIC])},
        lambda x: {"stress": np.stack([_general({k: x[k][i] for k in ("strain", "orientation")},
                                                x["T"][i])["stress"] for i in range(2)])},
    ),
    ModelCase(
        "green-lagrange",
        _hit("GreenLagrangeStrain", "deformation_gradient = 'F'\n    strain = 'E'"),
        {"F": F},
        lambda x: {"E": _from_mat(0.5 * (np.swapaxes(x["F"], -1, -2) @ x["F"] - np.eye(3)))},
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_elasticity(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_parameter_names_and_roles() -> None:
    m = load_string(_lie("coefficients = '1e5 0.3'\n    coefficient_types = "
                         "'YOUNGS_MODULUS POISSONS_RATIO'\n    strain = 'ee'\n    rate_form = true"
                         "\n    compliance = true")).get_model("model")  # fmt: skip
    assert list(m.input_spec) == ["stress_rate"]
    assert list(m.output_spec) == ["ee_rate"]
    assert sorted(n for n, _ in m.named_parameters()) == ["E", "nu"]


BAD = [
    ("coefficients = '-1e5 0.3'", "YOUNGS_MODULUS POISSONS_RATIO", r"'coefficients'.*E must be positive"),
    ("coefficients = '1e5 0.5'", "YOUNGS_MODULUS POISSONS_RATIO", r"'coefficients'.*Poisson"),
    ("coefficients = '1e5 -1.2'", "YOUNGS_MODULUS POISSONS_RATIO", r"'coefficients'.*Poisson"),
    ("coefficients = '0 7e4'", "BULK_MODULUS SHEAR_MODULUS", r"'coefficients'.*K must be positive"),
    ("coefficients = 'inf 0.3'", "YOUNGS_MODULUS POISSONS_RATIO", r"'coefficients'.*E must be positive and finite, got inf"),
    ("coefficients = 'nan 0.3'", "YOUNGS_MODULUS POISSONS_RATIO", r"'coefficients'.*E must be positive and finite, got nan"),
    ("coefficients = '1e5 inf'", "BULK_MODULUS SHEAR_MODULUS", r"'coefficients'.*G must be positive and finite"),
    ("coefficients = '1e5 0.3'", "YOUNGS_MODULUS", r"'coefficient_types'.*must match"),
    ("coefficients = '1e5 0.3'", "YOUNGS_MODULUS POISSON", r"'coefficient_types'.*unknown"),
    ("coefficients = '1e5 2e5'", "YOUNGS_MODULUS YOUNGS_MODULUS", r"'coefficient_types'.*duplicate"),
    ("coefficients = '1e5 0.3 1'", "YOUNGS_MODULUS POISSONS_RATIO BULK_MODULUS",
     r"'coefficients'.*expected 2"),
    ("coefficients = '-1e5 7e4'", "LAME_LAMBDA SHEAR_MODULUS", r"'coefficients'.*bulk modulus"),
]  # fmt: skip


@pytest.mark.parametrize(("coefs", "types", "match"), BAD)
def test_bad_coefficients(coefs: str, types: str, match: str) -> None:
    f = load_string(_lie(f"{coefs}\n    coefficient_types = '{types}'"))
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + match):
        f.get_model("model")


def test_cubic_requires_e_nu_g() -> None:
    f = load_string(_hit("CubicElasticityTensor", "coefficients = '1 0.3 2'\n"
                         "    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO BULK_MODULUS'"))  # fmt: skip
    with pytest.raises(ValueError, match=r"\[Models/model\].*'coefficient_types'.*SHEAR_MODULUS"):
        f.get_model("model")
