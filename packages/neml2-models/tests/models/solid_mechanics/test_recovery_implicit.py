"""Implicit J2 viscoplasticity whose hardening rates include power-law static recovery
(``inputs/static_recovery_implicit.i``) or two-stage thermal annealing of hardening + recovery
under a temperature ramp (``inputs/thermal_annealing_implicit.i``), driven from zero hardening.

Reference numbers: NEML2 v3.1.0 (the ``neml2`` package, v3.1.0), each input loaded with
``neml2.load_input(path).get_driver("driver")``, ``run()``, then ``result()``: for the listed
steps, ``output.<step>.stress[:, 0]``, ``output.<step>.isotropic_hardening`` and
``output.<step>.back_stress[:, 0]`` (batch of 3 strain amplitudes), printed with ``repr``.

Tolerance: both inputs stop Newton at ``|R| <= max(1e-10, 1e-8 |R0|)`` with ``|R0| < 1e2``, so the
residual left in either solve is below 1e-6 (stress units); the backward-Euler Jacobian is the
identity plus a positive-semidefinite ``dt``-scaled term, so each state is off by at most ~1e-6
per step; ``atol = rtol = 1e-6`` covers that (observed agreement: ~1e-15 relative).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from narrow import narrow

from neml2.drivers import TransientDriver
from neml2.factory import load_input

INPUTS = Path(__file__).parent / "inputs"

Row = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]

# step: (stress_xx, isotropic_hardening, back_stress_xx), each over the batch of 3
RECOVERY: dict[int, Row] = {
    1: ((15.384615384615385, 38.11557654819715, 52.247281273002905), (0.0, 0.027532001736712223, 1.9173207451588055), (0.0, 0.05990073928528881, 3.9654699722137643)),
    2: ((30.76923076923077, 52.21462007352117, 67.13985144868123), (0.0, 1.9204336614560034, 6.456890630710366), (0.0, 3.9743333848868914, 12.28877064431627)),
    5: ((50.52261254932045, 70.8125726220772, 94.95701325366578), (2.0638035002135013, 8.98219092997813, 19.51268512223485), (4.320718911585635, 16.799580922910128, 30.941741619081746)),
    10: ((63.015310615015764, 93.31855394578456, 121.92126890359347), (6.874017503326544, 19.854093771896203, 37.102217628225986), (13.444513355401922, 31.87548193154474, 45.932275597077656)),
    15: ((57.10932307614429, 84.32836425309574, 109.66101596679819), (7.30198373441731, 20.386250921386203, 37.60462591020105), (14.196735470955948, 32.436170798140594, 46.08007616071915)),
    20: ((56.19145978109204, 83.21901925404231, 108.35211520321876), (7.3682232766275195, 20.449352408862843, 37.64315927744462), (14.30468403787777, 32.44011674252494, 45.938738196266826)),
}  # fmt: skip

ANNEALING: dict[int, Row] = {
    1: ((15.384615384615385, 38.11557654819715, 52.247281273002905), (0.0, 0.027532001736712223, 1.9173207451588055), (0.0, 0.05990073928528881, 3.9654699722137643)),
    2: ((30.76923076923077, 52.21462007352117, 67.13985144868123), (0.0, 1.9204336614560034, 6.456890630710366), (0.0, 3.9743333848868914, 12.28877064431627)),
    5: ((50.52261254932045, 70.8125726220772, 94.95701325366578), (2.0638035002135013, 8.98219092997813, 19.51268512223485), (4.320718911585635, 16.799580922910128, 30.941741619081746)),
    10: ((52.118523729171606, 72.47854589754134, 96.61547019547488), (4.251597195225764, 13.887834722779859, 27.53156331855971), (3.703473352787687, 14.399640791065824, 26.52149281635578)),
    15: ((42.21850395359753, 51.43754427496737, 61.970542528788826), (1.7414542111644729, 5.688457102450631, 11.276928335282056), (1.7134651509059948, 6.662200677772824, 12.270549660259569)),
    20: ((39.401290696123844, 43.897138219176625, 48.63714021888952), (0.5706397159143746, 1.8639936233310226, 3.6952238769052244), (0.7927592677720604, 3.0823628529994336, 5.677146079501303)),
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "reference"),
    [("static_recovery_implicit.i", RECOVERY), ("thermal_annealing_implicit.i", ANNEALING)],
)
def test_recovery_implicit_matches_v3(name: str, reference: dict[int, Row]) -> None:
    driver = narrow(load_input(INPUTS / name).get_driver("driver"), TransientDriver)
    driver.run()
    res = driver.result()
    for step, (sxx, h, xxx) in reference.items():
        got = (
            res[f"output.{step}.stress"][:, 0],
            res[f"output.{step}.isotropic_hardening"],
            res[f"output.{step}.back_stress"][:, 0],
        )
        for g, want in zip(got, (sxx, h, xxx), strict=True):
            w = torch.tensor(want, dtype=torch.float64)
            torch.testing.assert_close(g.detach(), w, rtol=1e-6, atol=1e-6, msg=f"step {step}")
    assert all(bool(torch.isfinite(v).all()) for v in res.values())
