"""Predictors: constant/linear extrapolation (cold start), RateCondensation, CoordinateDescent."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from neml2.factory import load_string
from neml2.models.testing import ModelCase, case_id, check_model

RNG = np.random.default_rng(11)


def _extrap(kind: str, extra: str = "") -> str:
    return f"""
[Models]
  [model]
    type = {kind}ExtrapolationPredictor
    unknowns_SR2 = 's'
    unknowns_Scalar = 'e'
    unknowns_R2 = 'F'
    unknowns_MRP = 'q'
    {extra}
  []
[]
"""


def _lin(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    s = (x["t"] - x["t~1"]) / (x["t~1"] - x["t~2"])
    out = {}
    for u, pad in (("s", 1), ("e", 0), ("F", 2), ("q", 1)):
        sp = s.reshape(s.shape + (1,) * pad)
        out[u] = x[f"{u}~1"] + (x[f"{u}~1"] - x[f"{u}~2"]) * sp
    return out


N = 4
_OLD = {
    "s~1": RNG.normal(size=(N, 6)), "e~1": RNG.normal(size=N), "F~1": RNG.normal(size=(N, 3, 3)),
    "q~1": RNG.normal(size=(N, 3)) * 0.2,
}  # fmt: skip
_OLDER = {k.replace("~1", "~2"): RNG.normal(size=np.shape(v)) for k, v in _OLD.items()}
_TIME = {"t": [2.0, 2.5, 3.0, 4.0], "t~1": [1.0, 1.1, 1.2, 1.3], "t~2": [0.5, 0.6, 0.7, 0.8]}
_COLD_TIME = {"t": [2.0, 2.5, 3.0, 4.0], "t~1": 0.0, "t~2": 0.0}

EXTRAPOLATION = [
    ModelCase("constant", _extrap("Constant"), inputs=_OLD,
              expected=lambda x: {u: x[f"{u}~1"] for u in ("s", "e", "F", "q")}),
    ModelCase("constant_cold_hot", _extrap("Constant", "cold = 'e:e0'"),
              inputs={**_OLD, **_TIME, "e0": RNG.normal(size=N)},
              expected=lambda x: {"e": x["e~1"], "s": x["s~1"]}),
    # at the switch |t~1 - t~2| = 0 the map is discontinuous in time: values only
    ModelCase("constant_cold", _extrap("Constant", "cold = 'e:e0 s:s0'"),
              inputs={**_OLD, **_COLD_TIME, "e0": RNG.normal(size=N), "s0": RNG.normal(size=(N, 6))},
              expected=lambda x: {"e": x["e0"], "s": x["s0"], "q": x["q~1"]}, derivatives=False),
    ModelCase("linear", _extrap("Linear"), inputs={**_OLD, **_OLDER, **_TIME}, expected=_lin),
    ModelCase("linear_fallback", _extrap("Linear", "time = 'time'"),
              inputs={**_OLD, **_OLDER, "time": [2.0, 2.5, 3.0, 4.0], "time~1": 1.0, "time~2": 1.0},
              expected=lambda x: {u: x[f"{u}~1"] for u in ("s", "e", "F", "q")},
              derivatives=False),
    ModelCase("linear_cold", _extrap("Linear", "cold = 'e:e0'"),
              inputs={**_OLD, **_OLDER, **_COLD_TIME, "e0": RNG.normal(size=N)},
              expected=lambda x: {"e": x["e0"], "s": x["s~1"]}, derivatives=False),
    ModelCase("linear_cold_hot", _extrap("Linear", "cold = 'e:e0'"),
              inputs={**_OLD, **_OLDER, **_TIME, "e0": RNG.normal(size=N)}, expected=_lin),
]  # fmt: skip


@pytest.mark.parametrize("case", EXTRAPOLATION, ids=case_id)
def test_extrapolation(case: ModelCase, dtype: torch.dtype, device: torch.device) -> None:
    check_model(case, dtype=dtype, device=device)


def test_io_order() -> None:
    m = load_string(_extrap("Linear", "cold = 'e:e0'")).get_model("model")
    assert list(m.output_spec) == ["s", "e", "q", "F"]  # SR2, Scalar, MRP, R2
    assert list(m.input_spec) == [
        "s~1", "e~1", "q~1", "F~1", "s~2", "e~2", "q~2", "F~2", "t", "t~1", "t~2", "e0",
    ]  # fmt: skip
    c = load_string(_extrap("Constant")).get_model("model")
    assert list(c.input_spec) == ["s~1", "e~1", "q~1", "F~1"]


def test_cold_derivatives() -> None:
    """Where cold applies, u = var: du/dvar = 1, du/du~1 = 0 (and the reverse elsewhere)."""
    m = load_string(_extrap("Constant", "cold = 'e:e0'")).get_model("model")
    x = {k: torch.as_tensor(np.asarray(v, dtype=np.float64)) for k, v in _OLD.items()}
    x.update(e0=torch.ones(N, dtype=torch.float64),
             t=torch.ones(N, dtype=torch.float64), **{"t~1": torch.tensor([0.0, 0.0, 0.5, 0.5],
             dtype=torch.float64), "t~2": torch.zeros(N, dtype=torch.float64)})  # fmt: skip
    _, J = m.jacobian(x)
    torch.testing.assert_close(J["e"]["e0"].data, torch.tensor([1.0, 1.0, 0.0, 0.0]).double())
    torch.testing.assert_close(J["e"]["e~1"].data, torch.tensor([0.0, 0.0, 1.0, 1.0]).double())


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ("cold = 'e'", r"'cold'.*'unknown:variable'"),
        ("cold = 'z:e0'", r"'cold'.*'z' is not one of the unknowns"),
        ("cold = 'e:a e:b'", r"'cold'.*given twice"),
        ("unknowns_Scalar = 's'", r"listed twice"),
    ],
)
def test_bad_extrapolation_options(extra: str, match: str) -> None:
    hit = _extrap("Constant", extra)
    if extra.startswith("unknowns_Scalar"):
        hit = hit.replace("    unknowns_Scalar = 'e'\n", "")
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + match):
        load_string(hit).get_model("model")
    with pytest.raises(ValueError, match=r"at least one unknown"):
        load_string("[Models]\n[model]\ntype = ConstantExtrapolationPredictor\n[]\n[]\n").get_model(
            "model"
        )


# ---------------------------------------------------------------- RateCondensation
RC = """
[Models]
  [prod]
    type = ScalarMultiplication
    from = 'gamma x'
    to = 'p'
  []
  [sq]
    type = ScalarMultiplication
    from = 'gamma g2 x'
    to = 'p2'
  []
  [g2]
    type = CopyScalar
    from = 'gamma'
    to = 'g2'
  []
  [f]
    type = ScalarLinearCombination
    from = 'tf p p2'
    weights = '1 -1 -5'
    to = 'force'
  []
  [path]
    type = ComposedModel
    models = 'g2 prod sq f'
  []
  [model]
    type = RateCondensation
    model = 'path'
    rate = 'gamma'
    driving_force = 'force'
  []
[]
"""


def _rc(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    # f(g) = tf - x g - 5 x g^2  =>  b = tf, A = -f'(0) = x
    return {"coupling": x["x"], "trial_driving_force": x["tf"]}


# ---------------------------------------------------------------- CoordinateDescentPredictor
CD = """
[Models]
  [c1]
    type = CopyScalar
    from = 'w'
    to = 'w2'
  []
  [c2]
    type = CopyScalar
    from = 'w'
    to = 'w3'
  []
  [m]
    type = ScalarMultiplication
    from = 'w w2 w3'
    to = 'r'
    scaling = 'c'
  []
  [law]
    type = ComposedModel
    models = 'c1 c2 m'
  []
  [model]
    type = CoordinateDescentPredictor
    rate_law = 'law'
    driving_force_input = 'w'
    bisections = 40
  []
[]
"""


def _cd(x: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """rate = c w^3 with w the real root of w + A c w^3 = b (numpy roots)."""
    out = []
    for a, b, c in zip(*np.broadcast_arrays(x["coupling"], x["trial_driving_force"], x["c"]),
                       strict=True):  # fmt: skip
        r = np.roots([a * c, 0.0, 1.0, -b])
        w = r[np.argmin(np.abs(r.imag))].real
        out.append(c * w**3)
    return {"rate": np.array(out)}


CONDENSATION = [
    ModelCase("rate_condensation", RC, inputs={"x": RNG.uniform(1, 2, N), "tf": RNG.normal(size=N)},
              expected=_rc),
    ModelCase("coordinate_descent", CD,
              inputs={"coupling": RNG.uniform(0.5, 2, 5), "trial_driving_force": RNG.normal(size=5) * 3,
                      "c": RNG.uniform(0.5, 2, 5)}, expected=_cd),
    ModelCase("coordinate_descent_uncoupled", CD,
              inputs={"coupling": 0.0, "trial_driving_force": RNG.normal(size=3), "c": 1.5},
              expected=_cd, fd_eps=1e-7),  # d2 rate/dA2 = O(b^8): keep FD truncation small
]  # fmt: skip


#: the registry-coverage test reads the types of every case from here
CASES = EXTRAPOLATION + CONDENSATION


@pytest.mark.parametrize("case", CONDENSATION, ids=case_id)
def test_condensation_and_descent(
    case: ModelCase, dtype: torch.dtype, device: torch.device
) -> None:
    check_model(case, dtype=dtype, device=device)


def test_condensed_predictor_chain() -> None:
    """b, A from RateCondensation feed CoordinateDescent: w + A phi(w) = b holds at the output."""
    hit = RC + CD.replace("  [model]\n    type = Coord", "  [model2]\n    type = Coord")
    f = load_string(hit)
    rc, cd = f.get_model("model"), f.get_model("model2")
    x = torch.tensor([1.0, 1.5], dtype=torch.float64)
    tf = torch.tensor([0.5, -2.0], dtype=torch.float64)
    c = torch.tensor([2.0, 0.7], dtype=torch.float64)
    out = rc.value({"x": x, "tf": tf})
    rate = cd.value({"coupling": out["coupling"], "trial_driving_force": out["trial_driving_force"],
                     "c": c})["rate"].data  # fmt: skip
    w = torch.sign(rate) * (rate.abs() / c) ** (1 / 3)
    torch.testing.assert_close(w + x * rate, tf, rtol=1e-12, atol=1e-12)


def _cd_law(law: str, options: str) -> str:
    return f"""
[Models]
  [law]
    {law}
  []
  [model]
    type = CoordinateDescentPredictor
    rate_law = 'law'
    driving_force_input = 'w'
    rate = 'r'
    {options}
  []
[]
"""


_PERZYNA = "type = PerzynaPlasticFlowRate\n    reference_stress = 10\n    exponent = 5\n" \
    "    yield_function = 'w'\n    flow_rate = 'r'"  # fmt: skip
_IDENTITY = "type = ScalarLinearCombination\n    from = 'w'\n    to = 'r'"


@pytest.mark.parametrize(
    ("law", "options", "A", "b", "rate"),
    [
        # stiff Perzyna law (eta = 10, n = 5), default options: the root, e.g. 3.0181e-3 where
        # the bracket [b - A phi(b), b] gave 834.9 (w + A phi = 1.6e7, not b = 60)
        (_PERZYNA, "", [18842.0, 18842.0, 1.0, 100.0, 0.0], [60.0, 5.0, 2.0, 30.0, 7.0],
         [3.0181030663344417e-03, 1.7165107865940967e-04, 3.1974428634697462e-04,
          2.2574533278961026e-01, 1.6807000000000008e-01]),
        # no bisection, no polish: phi(b / 2), the midpoint of [0, b]
        (_PERZYNA, "bisections = 0\n    polish = 0", [18842.0, 1.0, 0.0], [60.0, 2.0, 7.0],
         [243.0, 1.0000000000000003e-05, 5.2521875000000025e-03]),
        # phi(w) = w, one bisection: the b end moves to b/2 iff sign(b) g(b/2) >= 0 (ties
        # included: A = 1, b = +-4 give g(b/2) = 0), else the zero end
        (_IDENTITY, "bisections = 1\n    polish = 0", [1.0, 1.0, 3.0, 0.0, 0.0, 2.0, -0.5],
         [4.0, -4.0, 5.0, 6.0, -6.0, -2.0, 3.0], [1.0, -1.0, 1.25, 4.5, -4.5, -0.5, 2.25]),
        # phi(w) = w, one unguarded Newton step from b/2: exact root b / (1 + A), also outside
        # [0, b] (A = -0.5)
        (_IDENTITY, "bisections = 0\n    polish = 1", [1.0, 3.0, 0.0, 2.0, -0.5],
         [4.0, 5.0, -6.0, -2.0, 3.0], [2.0, 1.25, -6.0, -2.0 / 3.0, 6.0]),
    ],
    ids=["perzyna_defaults", "perzyna_midpoint", "bisection_ties", "unguarded_newton"],
)  # fmt: skip
def test_coordinate_descent_matches_v3(
    law: str, options: str, A: list[float], b: list[float], rate: list[float]
) -> None:
    """Rates from NEML2 v3.1.0 (CoordinateDescentPredictor ``value`` on these A, b): the search
    interval is [0, b] and the polish is plain Newton. rtol 1e-12: a few Perzyna evaluations in
    double precision (observed agreement 1e-15)."""
    model = load_string(_cd_law(law, options)).get_model("model")
    out = model.value({"coupling": torch.tensor(A, dtype=torch.float64),
                       "trial_driving_force": torch.tensor(b, dtype=torch.float64)})  # fmt: skip
    expected = torch.tensor(rate, dtype=torch.float64)
    torch.testing.assert_close(out["r"].data.detach(), expected, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize(
    ("hit", "old", "new", "match"),
    [
        (RC, "rate = 'gamma'", "rate = 'nope'", r"'rate'.*'nope' is not an input"),
        (RC, "driving_force = 'force'", "driving_force = 'p3'", r"'driving_force'.*not an output"),
        (CD, "driving_force_input = 'w'", "driving_force_input = 'c'", r"'driving_force_input'"),
        (CD, "bisections = 40", "sweeps = 0", r"'sweeps'"),
        (CD, "bisections = 40", "polish = -1", r"'polish'"),
    ],
)
def test_bad_condensation_options(hit: str, old: str, new: str, match: str) -> None:
    text = hit.replace(old, new)
    if "'c'" in new:  # make c a non-input of the law: it is a parameter now
        text = text.replace("scaling = 'c'", "scaling = 2")
    with pytest.raises(ValueError, match=r"\[Models/model\].*" + match):
        load_string(text).get_model("model")
