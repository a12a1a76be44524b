"""Finite-volume models: values against independent numpy formulas, Jacobians (full layout
``(*B, *S_out, *S_in)`` for the cell-coupling operators), second derivatives (full blocks
``(*B, *S_out, *S_a, *S_b)`` for the cell-coupling operators and the sources), bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model
from neml2.tensors import Scalar

RNG = np.random.default_rng(31)
N = 5  # cells


def _hit(body: str, tensors: str = "") -> str:
    return f"""
{tensors}
[Models]
  [model]
{body}
  []
[]
"""


SUB_EDGES = """
[Tensors]
  [dxs]
    type = Python
    expr = 'Scalar(torch.tensor([0.1, 0.2, 0.4, 0.25], dtype=torch.float64)).sub_batch.retag(1)'
  []
[]
"""
DXS = np.array([0.1, 0.2, 0.4, 0.25])

U = RNG.random((7, N)) * 4.0 - 1.0  # 7 batch entries x 5 cells
VE = np.array([[0.7, -1.2, 2.0, -0.3]])  # (1 | 4) edge velocities, away from 0
# own generator: the draws of RNG (and so the other cases' values) stay as they were
RNG2 = np.random.default_rng(37)
VB = np.where(RNG2.random((7, N - 1)) < 0.5, -1.0, 1.0) * (0.2 + RNG2.random((7, N - 1)))
DE = 0.5 + RNG2.random((1, N - 1))  # (1 | 4) prefactor per edge
XC = np.array([0.1, 0.3, 0.6, 0.7, 0.95])  # cell centres
XE = np.array([0.0, 0.2, 0.4, 0.65, 0.8, 1.0])  # cell edges


def _grad(u: np.ndarray, dx: np.ndarray | float, p: np.ndarray | float) -> np.ndarray:
    out: np.ndarray = -np.asarray(p) / dx * (u[..., 1:] - u[..., :-1])
    return out


def _flux(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    up = np.where(v > 0, u[..., :-1], u[..., 1:])
    return v * up


def _interp(q: np.ndarray) -> np.ndarray:
    out = []
    for i in range(q.shape[-1] - 1):
        xl, xr, x = XC[i], XC[i + 1], XE[i + 1]
        out.append(((xr - x) * q[..., i] + (x - xl) * q[..., i + 1]) / (xr - xl))
    return np.stack(out, axis=-1)


def _gauss(m: np.ndarray, x0: np.ndarray, w: np.ndarray | float, xc: np.ndarray) -> np.ndarray:
    m, x0, w = (np.asarray(a)[..., None] for a in (m, x0, w))
    out: np.ndarray = m / (w * np.sqrt(2 * np.pi)) * np.exp(-((xc - x0) ** 2) / (2 * w**2))
    return out


GRAD = "    type = FiniteVolumeGradient\n    u = 'c'\n"
FLUX = "    type = FiniteVolumeUpwindedAdvectiveFlux\n    u = 'c'\n    v_edge = 'v'\n"
XC_S, XE_S = " ".join(map(str, XC)), " ".join(map(str, XE))
INTERP = f"    type = LinearlyInterpolateToCellEdges\n    cell_centers = '{XC_S}'\n" + (
    f"    cell_edges = '{XE_S}'\n"
)
BC = "    type = FiniteVolumeAppendBoundaryCondition\n    input = 'c'\n"
DUMP = "    type = DumpInSmallestBin\n"
SMEAR = "    type = SmearedDeltaSource\n    magnitude = 'm'\n    location = 'x0'\n"
SEMI = "    type = SemiInfiniteCoordinateTransform\n    coordinate = 'x'\n"
Q = RNG.random((7, N)) + 0.5
M7 = RNG.random(7) + 0.5
X0 = np.array([0.45])
D1 = np.array([1.7])

CASES = [
    ModelCase("fv-gradient", _hit(GRAD + "    dx = 0.1\n    prefactor = 2.5"), {"c": U},
              lambda x: {"grad_u": _grad(x["c"], 0.1, 2.5)}, sub_batch={"c": 1}),
    ModelCase("fv-gradient-edge-dx", _hit(GRAD + "    dx = dxs", SUB_EDGES), {"c": U},
              lambda x: {"grad_u": _grad(x["c"], DXS, 1.0)}, sub_batch={"c": 1}),
    ModelCase("fv-gradient-promoted", _hit(GRAD + "    dx = 0.2\n    prefactor = 'D'"),
              {"c": U, "D": D1}, lambda x: {"grad_u": _grad(x["c"], 0.2, x["D"][..., None])},
              sub_batch={"c": 1}),
    # prefactor per edge (a sub-batched variable) with a per-edge spacing: the cross term
    # d2 g / dD du couples each edge's D with its two cells
    ModelCase("fv-gradient-promoted-per-edge", _hit(GRAD + "    dx = dxs\n    prefactor = 'D'",
                                                    SUB_EDGES),
              {"c": U, "D": DE}, lambda x: {"grad_u": _grad(x["c"], DXS, x["D"])},
              sub_batch={"c": 1, "D": 1}),
    ModelCase("fv-upwind-flux", _hit(FLUX), {"c": U, "v": VE},
              lambda x: {"flux": _flux(x["c"], x["v"])}, sub_batch={"c": 1, "v": 1}),
    ModelCase("fv-upwind-flux-per-entry", _hit(FLUX), {"c": U, "v": VB},
              lambda x: {"flux": _flux(x["c"], x["v"])}, sub_batch={"c": 1, "v": 1}),
    ModelCase("fv-interpolate-constant", _hit(INTERP + "    cell_values = '1 2 4 7 3'"), {},
              lambda x: {"edge_values": _interp(np.array([1.0, 2, 4, 7, 3]))}),
    ModelCase("fv-interpolate-promoted", _hit(INTERP + "    cell_values = 'q'"), {"q": Q},
              lambda x: {"edge_values": _interp(x["q"])}, sub_batch={"q": 1}),
    ModelCase("fv-bc-left", _hit(BC + "    bc_value = 2.5"), {"c": U},
              lambda x: {"c_with_bc_left": np.concatenate(
                  [np.full((x["c"].shape[0], 1), 2.5), x["c"]], axis=-1)},
              sub_batch={"c": 1}),
    ModelCase("fv-bc-right", _hit(BC + "    bc_value = -0.5\n    side = right"), {"c": U},
              lambda x: {"c_with_bc_right": np.concatenate(
                  [x["c"], np.full((x["c"].shape[0], 1), -0.5)], axis=-1)},
              sub_batch={"c": 1}),
    ModelCase("fv-dump", _hit(DUMP + "    cell_centers = '0.1 0.2 0.3 0.4'"), {"magnitude": M7},
              lambda x: {"state/dumped_source": np.stack(
                  [x["magnitude"], *[0 * x["magnitude"]] * 3], axis=-1)}),
    ModelCase("fv-dump-promoted", _hit(DUMP + "    magnitude = 'm'\n    cell_centers = 'xc'"),
              {"m": M7, "xc": XC[None]},
              lambda x: {"state/dumped_source": np.stack(
                  [x["m"], *[0 * x["m"]] * (N - 1)], axis=-1)}, sub_batch={"xc": 1}),
    ModelCase("fv-smeared", _hit(SMEAR + f"    width = 0.15\n    cell_centers = '{XC_S}'"),
              {"m": M7, "x0": X0},
              lambda x: {"state/smeared_source": _gauss(x["m"], x["x0"], 0.15, XC)}),
    ModelCase("fv-smeared-promoted",
              _hit(SMEAR + "    width = 'w'\n    cell_centers = 'xc'"),
              {"m": M7, "x0": X0, "w": np.array([0.2]), "xc": XC[None]},
              lambda x: {"state/smeared_source": _gauss(x["m"], x["x0"], x["w"], x["xc"])},
              sub_batch={"xc": 1}),
    # every input per cell: site-diagonal, so the harness checks all second derivatives
    ModelCase("fv-smeared-per-cell",
              _hit(SMEAR + "    width = 'w'\n    cell_centers = 'xc'"),
              {"m": Q, "x0": 0.1 + 0.8 * RNG.random((1, N)), "w": 0.1 + 0.2 * RNG.random((1, N)),
               "xc": XC[None]},
              lambda x: {"state/smeared_source": x["m"] / (x["w"] * np.sqrt(2 * np.pi))
                         * np.exp(-0.5 * ((x["xc"] - x["x0"]) / x["w"]) ** 2)},
              sub_batch={"m": 1, "x0": 1, "w": 1, "xc": 1}),
    ModelCase("fv-semi-infinite", _hit(SEMI + "    shift = 2.0"), {"x": RNG.random(7) * 5},
              lambda x: {"state/x_hat": x["x"] / (x["x"] + 2.0)}),
    ModelCase("fv-semi-infinite-promoted", _hit(SEMI + "    shift = 's'"),
              {"x": RNG.random(7) * 5, "s": np.array([1.3])},
              lambda x: {"state/x_hat": x["x"] / (x["x"] + x["s"])}),
]  # fmt: skip


# a boundary value per dynamic-batch entry fixes the batch size (not in the batch-shape sweep)
BATCHED_PARAMETER_CASES = [
    ModelCase("fv-bc-right-batch", _hit(BC + "    bc_value = '1 2'\n    side = right\n"
                                           "    output = 'cb'"),
              {"c": U[:2]},
              lambda x: {"cb": np.concatenate([x["c"], np.array([[1.0], [2.0]])], axis=-1)},
              sub_batch={"c": 1}),
]  # fmt: skip


# the cell-coupling operators inside a composition: ghost cells, upwind advection with a
# velocity variable, diffusion with a promoted diffusivity, divergence; every second derivative
# of the cell rate (the (v, c) and (D, c) cross terms pushed through the chain) against autograd
COMPOSED_RATE = f"""
[Models]
  [bc_left]
{BC}    bc_value = 0.5
  []
  [bc_right]
{BC.replace("'c'", "'c_with_bc_left'")}    bc_value = 1
    side = right
    output = 'c_ext'
  []
  [advection]
{FLUX.replace("'c'", "'c_ext'")}    flux = 'advective_flux'
  []
  [diffusion]
{GRAD.replace("'c'", "'c_ext'")}    dx = 0.2
    prefactor = 'D'
    grad_u = 'diffusive_flux'
  []
  [total_flux]
    type = ScalarLinearCombination
    from = 'advective_flux diffusive_flux'
    to = 'flux'
  []
  [divergence]
{GRAD.replace("'c'", "'flux'")}    dx = 0.2
    grad_u = 'c_rate'
  []
  [model]
    type = ComposedModel
    models = 'bc_left bc_right advection diffusion total_flux divergence'
  []
[]
"""
VN = np.where(RNG2.random((7, N + 1)) < 0.5, -1.0, 1.0) * (0.2 + RNG2.random((7, N + 1)))


def _rate(c: np.ndarray, v: np.ndarray, d: np.ndarray) -> np.ndarray:
    ext = np.concatenate([np.full((*c.shape[:-1], 1), 0.5), c, np.ones((*c.shape[:-1], 1))], -1)
    return _grad(_flux(ext, v) + _grad(ext, 0.2, d[..., None]), 0.2, 1.0)


COMPOSED_CASES = [
    ModelCase("fv-composed-rate", COMPOSED_RATE, {"c": U, "v": VN, "D": D1},
              lambda x: {"c_rate": _rate(x["c"], x["v"], x["D"])},
              sub_batch={"c": 1, "v": 1}, second_order=True),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES + BATCHED_PARAMETER_CASES + COMPOSED_CASES, ids=case_id)
def test_fv_model(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_bc_default_output_names() -> None:
    f = load_string(_hit(BC + "    bc_value = 1\n    side = right"))
    assert list(f.get_model("model").output_spec) == ["c_with_bc_right"]
    f = load_string(_hit(BC + "    bc_value = 1"))
    assert list(f.get_model("model").output_spec) == ["c_with_bc_left"]


def test_semi_infinite_parameter_storage() -> None:
    m = load_string(_hit(SEMI + "    shift = 2.0")).get_model("model")
    assert [n for n, _ in m.named_parameters()] == ["s"]


@pytest.mark.parametrize(
    ("body", "option"),
    [
        (BC + "    bc_value = 1\n    side = middle", "side"),
        (INTERP.replace(XE_S, "0 0.2 0.5 0.4 0.8 1") + "    cell_values = q", "cell_edges"),
        (INTERP.replace(XE_S, "0 0.2 0.4 0.8 1") + "    cell_values = q", "cell_centers"),
        (INTERP + "    cell_values = '1 2 3'", "cell_values"),
        (SMEAR + f"    width = 0\n    cell_centers = '{XC_S}'", "width"),
        (SMEAR + f"    width = -0.1\n    cell_centers = '{XC_S}'", "width"),
        (GRAD + "    dx = 0", "dx"),
    ],
)
def test_bad_options(body: str, option: str) -> None:
    f = load_string(_hit(body))
    with pytest.raises(ValueError, match=rf"\[Models/model\].*'{option}'"):
        f.get_model("model")


def test_flux_edge_count_mismatch() -> None:
    m = load_string(_hit(FLUX)).get_model("model")
    u = Scalar(torch.zeros(2, N, dtype=torch.float64), sub_batch_ndim=1)
    v = Scalar(torch.ones(2, N, dtype=torch.float64), sub_batch_ndim=1)
    with pytest.raises(ValueError, match=r"'v'.*5 edge values.*'c' has 5 cells"):
        m.value({"c": u, "v": v})


def test_interpolated_variable_cell_count() -> None:
    m = load_string(_hit(INTERP + "    cell_values = 'q'")).get_model("model")
    q = Scalar(torch.zeros(2, N + 1, dtype=torch.float64), sub_batch_ndim=1)
    with pytest.raises(ValueError, match=r"'q' has 6 cells but 'cell_centers' has 5"):
        m.value({"q": q})


def test_cells_must_be_sub_batch() -> None:
    m = load_string(_hit(GRAD + "    dx = 0.1")).get_model("model")
    with pytest.raises(ValueError, match=r"variable 'c' has no sub-batch \(cell\) axis"):
        m.value({"c": Scalar(torch.zeros(3, N, dtype=torch.float64))})
