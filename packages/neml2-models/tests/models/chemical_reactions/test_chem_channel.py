"""CylindricalChannelGeometry and DiffusionLimitedReaction against numpy formulas.

r_i = sqrt(1 - phi_s - phi_p), r_o = sqrt(1 - phi_s) (inside the clamp range) and
r = 2 D R_l R_s / omega * r_o / (r_o - r_i + delta); derivatives by the harness. The v3 clamp
convention of r_i (derivative zero only below the lower clamp) is checked separately.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from narrow import narrow

from neml2.factory import load_string
from neml2.models.model import Model
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(5)


def _hit(body: str) -> str:
    return f"[Models]\n  [model]\n{body}  []\n[]\n"


CC = _hit("    type = CylindricalChannelGeometry\n")
CC_RENAMED = _hit(
    "    type = CylindricalChannelGeometry\n    solid_fraction = phis\n"
    "    product_fraction = phip\n    inner_radius = ri\n    outer_radius = ro\n"
)


def _dl(extra: str = "", d: str = "0.3") -> str:
    return _hit(
        f"    type = DiffusionLimitedReaction\n    diffusion_coefficient = {d}\n"
        f"    molar_volume = 2.0\n{extra}"
    )


def _radii(phs: np.ndarray, php: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.sqrt(1.0 - phs - php), np.sqrt(1.0 - phs)


def _rate(x: dict[str, np.ndarray], d: np.ndarray | float, delta: float) -> Any:
    ri, ro = x["product_inner_radius"], x["solid_inner_radius"]
    pre = 2.0 * d * x["liquid_reactivity"] * x["solid_reactivity"] / 2.0
    return pre * ro / (ro - ri + delta)


def _cc(x: dict[str, np.ndarray], s: str, p: str, i: str, o: str) -> dict[str, np.ndarray]:
    ri, ro = _radii(x[s], x[p])
    return {i: ri, o: ro}


DL_IN = {
    "product_inner_radius": RNG.uniform(0.1, 0.4, 7),
    "solid_inner_radius": RNG.uniform(0.45, 0.9, (1,)),
    "liquid_reactivity": RNG.uniform(0.2, 1.0, 7),
    "solid_reactivity": 0.8,
}
CASES = [
    ModelCase("chem-channel", CC,
              {"solid_fraction": RNG.uniform(0.05, 0.5, 7), "product_fraction": [0.3]},
              lambda x: _cc(x, "solid_fraction", "product_fraction", "inner_radius",
                            "outer_radius")),
    ModelCase("chem-channel-renamed", CC_RENAMED,
              {"phis": RNG.uniform(0.05, 0.5, (3, 1)), "phip": RNG.uniform(0.05, 0.45, 4)},
              lambda x: _cc(x, "phis", "phip", "ri", "ro")),
    ModelCase("chem-diffusion-limited", _dl(), DL_IN,
              lambda x: {"reaction_rate": _rate(x, 0.3, 0.01)}),
    ModelCase("chem-diffusion-limited-promoted", _dl("    product_dummy_thickness = 0.05\n", "DD"),
              {**DL_IN, "DD": RNG.uniform(0.1, 2.0, 7)},
              lambda x: {"reaction_rate": _rate(x, x["DD"], 0.05)}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_chem_channel(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_inner_radius_clamp_convention() -> None:
    """r_i = sqrt(clamp(x, eps, 1 - eps)), x = 1 - phi_s - phi_p; as NEML2 v3, dr_i/dphi is
    zero for x <= eps and -1/(2 r_i) elsewhere, also above 1 - eps."""
    eps = np.finfo(np.float64).eps
    m = load_string(CC).get_model("model")
    phs = torch.tensor([0.3, 0.5, -0.1, 0.0], dtype=torch.float64)
    php = torch.tensor([0.7, 0.6, 0.0, 0.0], dtype=torch.float64)
    out, jac = m.jacobian({"solid_fraction": phs, "product_fraction": php})
    ri = np.sqrt(np.array([eps, eps, 1 - eps, 1 - eps]))
    np.testing.assert_allclose(out["inner_radius"].data.detach().numpy(), ri, rtol=1e-15)
    want = np.array([0.0, 0.0, -0.5 / ri[2], -0.5 / ri[3]])
    for name in ("solid_fraction", "product_fraction"):
        got = jac["inner_radius"][name].data.detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize(
    ("extra", "option", "what"),
    [
        ("    molar_volume = 0\n", "molar_volume", "positive"),
        ("    molar_volume = -1\n", "molar_volume", "positive"),
        ("    product_dummy_thickness = -0.1\n", "product_dummy_thickness", "non-negative"),
    ],
)
def test_bad_options(extra: str, option: str, what: str) -> None:
    hit = _hit(f"    type = DiffusionLimitedReaction\n    diffusion_coefficient = 1\n{extra}")
    if "molar_volume" not in extra:
        hit = hit.replace("coefficient = 1\n", "coefficient = 1\n    molar_volume = 1\n")
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'.*{what}"):
        load_string(hit).get_model("model")


def test_bad_diffusion_coefficient_and_zero_thickness() -> None:
    with pytest.raises(ValueError, match=r"\[Models/model\].*'diffusion_coefficient'"):
        load_string(_dl(d="-0.3")).get_model("model")
    m = narrow(load_string(_dl("    product_dummy_thickness = 0\n")).get_model("model"), Model)
    assert m.product_dummy_thickness == 0.0
    assert [n for n, _ in m.named_parameters()] == ["D"]
