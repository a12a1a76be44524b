"""CubicCrystal: slip systems against hand-written FCC/BCC tables and Schmid factors; errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from cp_reference import bcc_systems, crystal_hit, fcc_systems, mandel

from neml2.data import CubicCrystal, cubic_symmetry_operators
from neml2.factory import load_string
from neml2.tensors import R2, SR2

FCC = ("1 1 0", "1 1 1")
BCC = ("1 1 1", "1 1 0")


def _lines(pairs: list[tuple[np.ndarray, np.ndarray]]) -> set[tuple[float, ...]]:
    """Systems as sign-free keys (a system and its reverse are one system)."""
    out = set()
    for d, n in pairs:
        d = d if d[np.flatnonzero(np.abs(d) > 1e-12)[0]] > 0 else -d
        n = n if n[np.flatnonzero(np.abs(n) > 1e-12)[0]] > 0 else -n
        out.add(tuple(np.round(np.concatenate([d, n]), 12)))
    return out


@pytest.mark.parametrize(("family", "table"), [(FCC, fcc_systems), (BCC, bcc_systems)],
                         ids=["fcc", "bcc"])  # fmt: skip
def test_systems_match_the_hand_table(family: tuple[str, str], table: object) -> None:
    geom = load_string(crystal_hit(*family)).get_data("crystal_geometry")
    ours = [(d.numpy(), n.numpy()) for d, n in zip(geom.directions, geom.normals, strict=True)]
    assert geom.nslip == 12
    assert _lines(ours) == _lines(table())  # type: ignore[operator]
    for d, n in ours:
        assert abs(np.linalg.norm(d) - 1) < 1e-14 and abs(np.linalg.norm(n) - 1) < 1e-14
        assert abs(d @ n) < 1e-14


def _schmid_factors(geom: object, axis: tuple[int, int, int]) -> np.ndarray:
    """|m_i| from ResolvedShear under uniaxial stress 1 along ``axis`` (identity orientation)."""
    from neml2.models.solid_mechanics.crystal_plasticity.resolved_shear import ResolvedShear

    model = ResolvedShear(crystal_geometry=geom)
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    sigma = SR2(torch.tensor(mandel(np.outer(u, u))))
    tau = model.value(
        {"stress": sigma, "orientation_matrix": R2(torch.eye(3, dtype=torch.float64))}
    )
    return np.sort(np.abs(tau["resolved_shears"].data.numpy()))


S6 = 1 / np.sqrt(6.0)
# textbook Schmid factors, sorted: FCC/BCC share [001] (8 systems at 1/sqrt(6), 4 at 0)
TABLE = {
    ("fcc", (0, 0, 1)): [0.0] * 4 + [S6] * 8,
    ("fcc", (1, 1, 1)): [0.0] * 6 + [2 / (3 * np.sqrt(6.0))] * 6,
    ("fcc", (0, 1, 1)): [0.0] * 8 + [S6] * 4,
    ("bcc", (0, 0, 1)): [0.0] * 4 + [S6] * 8,
    ("bcc", (1, 1, 1)): [0.0] * 6 + [2 / (3 * np.sqrt(6.0))] * 6,
    ("bcc", (0, 1, 1)): [0.0] * 8 + [S6] * 4,
}


@pytest.mark.parametrize("key", list(TABLE), ids=lambda k: f"{k[0]}-{''.join(map(str, k[1]))}")
def test_schmid_factor_table(key: tuple[str, tuple[int, int, int]]) -> None:
    family = FCC if key[0] == "fcc" else BCC
    geom = load_string(crystal_hit(*family)).get_data("crystal_geometry")
    np.testing.assert_allclose(_schmid_factors(geom, key[1]), TABLE[key], atol=1e-14)


def test_schmid_factors_of_a_general_axis_match_the_hand_table() -> None:
    axis = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)
    expected = np.sort([abs((d @ axis) * (n @ axis)) for d, n in fcc_systems()])
    geom = CubicCrystal.create(1.0, torch.tensor([1, 1, 0]), torch.tensor([1, 1, 1]))
    np.testing.assert_allclose(_schmid_factors(geom, (1, 2, 3)), expected, atol=1e-14)


def test_several_families_concatenate_in_order() -> None:
    geom = load_string(crystal_hit("1 1 0; 1 1 1", "1 1 1; 1 1 0")).get_data("crystal_geometry")
    assert geom.family_sizes == (12, 12)
    fcc = CubicCrystal.create(1.0, torch.tensor([1, 1, 0]), torch.tensor([1, 1, 1]))
    torch.testing.assert_close(geom.directions[:12], fcc.directions, rtol=0, atol=1e-15)


def test_lattice_parameter_does_not_change_unit_vectors() -> None:
    a = CubicCrystal.create(1.0, torch.tensor([1, 1, 0]), torch.tensor([1, 1, 1]))
    b = CubicCrystal.create(3.61, torch.tensor([1, 1, 0]), torch.tensor([1, 1, 1]))
    torch.testing.assert_close(a.M().data, b.M().data, rtol=0, atol=1e-15)


def test_cubic_symmetry_operators_are_the_rotation_group() -> None:
    Q = cubic_symmetry_operators().data
    assert Q.shape == (24, 3, 3)
    eye = torch.eye(3, dtype=torch.float64)
    torch.testing.assert_close(Q @ Q.mT, eye.expand(24, 3, 3), rtol=0, atol=0)
    torch.testing.assert_close(torch.linalg.det(Q), torch.ones(24, dtype=torch.float64))
    keys = {tuple(q.flatten().tolist()) for q in Q}
    assert len(keys) == 24
    products = {tuple((a @ b).flatten().tolist()) for a in Q for b in Q}
    assert products == keys  # closed under composition
    torch.testing.assert_close(Q[0], eye, rtol=0, atol=0)


@pytest.mark.parametrize(("dirs", "planes", "a", "option", "says"), [
    ("1 1 0", "1 1 1.5", "1.0", "slip_planes", "must be integers"),
    ("0 0 0", "1 1 1", "1.0", "slip_directions", "zero index"),
    ("1 1 1", "1 1 1", "1.0", "slip_planes", "orthogonal"),
    ("1 1 0; 1 1 1", "1 1 1", "1.0", "slip_planes", "one plane per direction"),
    ("1 1 0", "1 1 1", "-2.0", "lattice_parameter", "positive"),
    ("1 1 0", "1 1 1", "'nope'", "lattice_parameter", "[Tensors]"),
], ids=["non-integer", "zero", "not-in-plane", "family-count", "negative-a", "unknown-a"])  # fmt: skip
def test_bad_families_name_the_block_and_option(
    dirs: str, planes: str, a: str, option: str, says: str
) -> None:
    with pytest.raises(ValueError) as err:
        load_string(crystal_hit(dirs, planes, a)).get_data("crystal_geometry")
    msg = str(err.value)
    assert "[Data/crystal_geometry]" in msg and f"option '{option}'" in msg and says in msg, msg
