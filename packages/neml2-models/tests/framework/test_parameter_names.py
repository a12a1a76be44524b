"""Parameter names follow NEML2 v3: storage names, qualified paths, aliases for lookups.

Every expected list below was written out from ``named_parameters()`` of the reference package
(NEML2 v3.1.0) on the same input, in its order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from torch.func import functional_call

import neml2
from neml2._param_storage import V3_STORAGE
from neml2._registry import registry

ROOT = Path(__file__).resolve().parents[4]

# (input file relative to the repository, model) -> v3.1.0's named_parameters() keys, in order;
# the root models (not a submodule of another block) of every benchmark input (in the shared
# scenarios/) and example
V3_NAMES: dict[tuple[str, str], list[str]] = {
    ("scenarios/chaboche.i", "model"): [
        "implicit_rate.isoharden.R",
        "implicit_rate.isoharden.d",
        "implicit_rate.kinharden.weight_0",
        "implicit_rate.kinharden.offset",
        "implicit_rate.overstress.weight_0",
        "implicit_rate.overstress.weight_1",
        "implicit_rate.overstress.offset",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.flow_rate.eta",
        "implicit_rate.flow_rate.n",
        "implicit_rate.X1rate.C",
        "implicit_rate.X1rate.g",
        "implicit_rate.X1rate.A",
        "implicit_rate.X1rate.a",
        "implicit_rate.X2rate.C",
        "implicit_rate.X2rate.g",
        "implicit_rate.X2rate.A",
        "implicit_rate.X2rate.a",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("scenarios/elasticity.i", "model"): ["E", "nu"],
    ("examples/chemical_reactions/pyrolysis_avrami.i", "model"): [
        "update.residual.k.p0",
        "update.residual.k.Q",
        "update.residual.rate.n",
    ],
    ("examples/phase_field_fracture/homogeneous_bar.i", "model"): [
        "update.residual.driving_force.total_energy.strain_energy.K",
        "update.residual.driving_force.total_energy.strain_energy.G",
        "update.residual.driving_force.total_energy.degradation.p",
        "update.residual.driving_force.total_energy.degraded_energy.scaling",
        "update.residual.driving_force.total_energy.energy.weight_0",
        "update.residual.driving_force.total_energy.energy.weight_1",
        "update.residual.driving_force.total_energy.energy.weight_2",
        "update.residual.driving_force.total_energy.energy.offset",
        "update.residual.increment.weight_0",
        "update.residual.increment.weight_1",
        "update.residual.increment.offset",
    ],
    ("examples/finite_volume/advection_diffusion.i", "model"): [
        "residual.rate.bc_left.bc_value",
        "residual.rate.edge_velocity.cell_values",
        "residual.rate.edge_velocity.cell_centers",
        "residual.rate.edge_velocity.cell_edges",
        "residual.rate.bc_right.bc_value",
        "residual.rate.diffusion.dx",
        "residual.rate.diffusion.prefactor",
        "residual.rate.total_flux.weight_0",
        "residual.rate.total_flux.offset",
        "residual.rate.divergence.dx",
        "residual.rate.divergence.prefactor",
    ],
    ("examples/kwn/isothermal_precipitation.i", "model"): [
        "update.residual.volume_fraction.R",
        "update.residual.N_left.bc_value",
        "update.residual.matrix.x0",
        "update.residual.matrix._xp_names_0",
        "update.residual.N_right.bc_value",
        "update.residual.driving.R_g",
        "update.residual.driving._x_eq_names_0",
        "update.residual.driving._w_names_0",
        "update.residual.projected._dx_names_0",
        "update.residual.projected._D_names_0",
        "update.residual.barrier.gamma",
        "update.residual.barrier.V_m",
        "update.residual.bin_driving.weight_0",
        "update.residual.bin_driving.offset",
        "update.residual.zeldovich.gamma",
        "update.residual.zeldovich.V_m",
        "update.residual.zeldovich.N_a",
        "update.residual.zeldovich.k",
        "update.residual.kinetic.V_m",
        "update.residual.kinetic.N_a",
        "update.residual.growth.R",
        "update.residual.growth.R_g",
        "update.residual.nucleation.N0",
        "update.residual.nucleation.k",
        "update.residual.growth_left.bc_value",
        "update.residual.nuclei.cell_centers",
        "update.residual.growth_right.bc_value",
        "update.residual.edge_velocity.cell_centers",
        "update.residual.edge_velocity.cell_edges",
        "update.residual.divergence.dx",
        "update.residual.divergence.prefactor",
        "update.residual.rate.weight_0",
        "update.residual.rate.offset",
        "number_total.R",
        "radius_moment.R",
        "regularized_total.weight_0",
        "regularized_total.offset",
        "mean.scaling",
    ],
    ("scenarios/taylor.i", "model"): [
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
        "implicit_rate.slip_strength.constant_strength",
        "implicit_rate.slip_rule.gamma0",
        "implicit_rate.slip_rule.n",
        "implicit_rate.voce_hardening.initial_slope",
        "implicit_rate.voce_hardening.saturated_hardening",
        "predictor.cp_warmup_1.scale",
        "predictor.cp_warmup_1.threshold",
    ],
    ("examples/crystal_plasticity/crystal_plasticity.i", "model_with_stress"): [
        "model.implicit_rate.elasticity.E",
        "model.implicit_rate.elasticity.nu",
        "model.implicit_rate.slip_strength.constant_strength",
        "model.implicit_rate.slip_rule.gamma0",
        "model.implicit_rate.slip_rule.n",
        "model.implicit_rate.voce_hardening.initial_slope",
        "model.implicit_rate.voce_hardening.saturated_hardening",
        "model.predictor.cp_warmup_1.scale",
        "model.predictor.cp_warmup_1.threshold",
    ],
    ("examples/calibration/calibrate_perzyna.i", "implicit_rate"): [
        "isoharden.K",
        "normality.flow.yield_surface.sy",
        "flow_rate.eta",
        "flow_rate.n",
        "Eerate.weight_0",
        "Eerate.weight_1",
        "Eerate.offset",
        "elasticity.E",
        "elasticity.nu",
    ],
    ("examples/elasticity.i", "model"): ["E", "nu"],
    ("examples/plasticity/combined.i", "model"): [
        "implicit_rate.isoharden.K",
        "implicit_rate.kinharden.H",
        "implicit_rate.overstress.weight_0",
        "implicit_rate.overstress.weight_1",
        "implicit_rate.overstress.offset",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/isoharden.i", "model"): [
        "implicit_rate.isoharden.K",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/kinharden.i", "model"): [
        "implicit_rate.kinharden.H",
        "implicit_rate.overstress.weight_0",
        "implicit_rate.overstress.weight_1",
        "implicit_rate.overstress.offset",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/mixed_control.i", "model"): [
        "update.implicit_rate.isoharden.K",
        "update.implicit_rate.kinharden.H",
        "update.implicit_rate.overstress.weight_0",
        "update.implicit_rate.overstress.weight_1",
        "update.implicit_rate.overstress.offset",
        "update.implicit_rate.normality.flow.yield_surface.sy",
        "update.implicit_rate.Eerate.weight_0",
        "update.implicit_rate.Eerate.weight_1",
        "update.implicit_rate.Eerate.offset",
        "update.implicit_rate.elasticity.E",
        "update.implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/perfect.i", "model"): [
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/perfect_temperature.i", "model"): [
        "implicit_rate.yield_stress.p0",
        "implicit_rate.yield_stress.Q",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/plasticity/radial_return.i", "model"): [
        "trial_elastic_strain.weight_0",
        "trial_elastic_strain.weight_1",
        "trial_elastic_strain.offset",
        "trial_elasticity.E",
        "trial_elasticity.nu",
        "update.return_map.trial_update.E",
        "update.return_map.trial_update.nu",
        "update.return_map.isoharden.K",
        "update.return_map.yield_surface.sy",
        "elastic_strain.weight_0",
        "elastic_strain.weight_1",
        "elastic_strain.offset",
        "elasticity.E",
        "elasticity.nu",
    ],
    ("examples/traction_separation/bilinear_bk.i", "model"): [
        "tangential_separation._p",
        "tangential_separation.weight_0",
        "effective_separation._p",
        "effective_separation.weight_0",
        "critical_separation.K",
        "critical_separation.N",
        "critical_separation.S",
        "full_separation.K",
        "full_separation.GIc",
        "full_separation.GIIc",
        "full_separation.S",
        "full_separation.eta",
        "traction.K",
    ],
    ("examples/traction_separation/bilinear_power_law.i", "model"): [
        "tangential_separation._p",
        "tangential_separation.weight_0",
        "effective_separation._p",
        "effective_separation.weight_0",
        "critical_separation.K",
        "critical_separation.N",
        "critical_separation.S",
        "full_separation.K",
        "full_separation.GIc",
        "full_separation.GIIc",
        "full_separation.S",
        "full_separation.eta",
        "traction.K",
    ],
    ("examples/traction_separation/orthotropic_linear.i", "model"): [
        "traction.Kn",
        "traction.Kt",
        "traction.Kpen",
    ],
    ("examples/traction_separation/salehani_irani.i", "model"): [
        "traction.delta_u0_n",
        "traction.delta_u0_t",
        "traction.Tmax_n",
        "traction.Tmax_t",
        "traction.Kpen",
    ],
    ("examples/viscoelasticity/burgers_creep.i", "model"): [
        "residual.burgers.EM",
        "residual.burgers.etaM",
        "residual.burgers.EK",
        "residual.burgers.etaK",
        "residual.equilibrium.weight_0",
        "residual.equilibrium.weight_1",
        "residual.equilibrium.offset",
    ],
    ("examples/viscoelasticity/burgers_creep_composed.i", "model"): [
        "residual.maxwell_spring.weight_0",
        "residual.maxwell_spring.weight_1",
        "residual.maxwell_spring.weight_2",
        "residual.maxwell_spring.offset",
        "residual.maxwell_dashpot.eta",
        "residual.kelvin_dashpot_stress.weight_0",
        "residual.kelvin_dashpot_stress.weight_1",
        "residual.kelvin_dashpot_stress.offset",
        "residual.equilibrium.weight_0",
        "residual.equilibrium.weight_1",
        "residual.equilibrium.offset",
        "residual.kelvin_dashpot.eta",
    ],
    ("examples/viscoelasticity/kelvin_voigt_creep.i", "model"): [
        "residual.kelvin_voigt.K",
        "residual.kelvin_voigt.eta",
        "residual.equilibrium.weight_0",
        "residual.equilibrium.weight_1",
        "residual.equilibrium.offset",
    ],
    ("examples/viscoelasticity/kelvin_voigt_creep_composed.i", "model"): [
        "residual.dashpot_stress.weight_0",
        "residual.dashpot_stress.weight_1",
        "residual.dashpot_stress.offset",
        "residual.dashpot.eta",
    ],
    ("examples/viscoelasticity/maxwell_creep.i", "model"): [
        "residual.elastic_strain.weight_0",
        "residual.elastic_strain.weight_1",
        "residual.elastic_strain.offset",
        "residual.spring.E",
        "residual.spring.nu",
        "residual.dashpot.eta",
        "residual.equilibrium.weight_0",
        "residual.equilibrium.weight_1",
        "residual.equilibrium.offset",
    ],
    ("examples/viscoelasticity/maxwell_relaxation.i", "model"): [
        "update.residual.elastic_strain.weight_0",
        "update.residual.elastic_strain.weight_1",
        "update.residual.elastic_strain.offset",
        "update.residual.spring.E",
        "update.residual.spring.nu",
        "update.residual.dashpot.eta",
    ],
    ("examples/viscoelasticity/wiechert_relaxation.i", "model"): [
        "update.residual.wiechert.Einf",
        "update.residual.wiechert.E1",
        "update.residual.wiechert.eta1",
        "update.residual.wiechert.E2",
        "update.residual.wiechert.eta2",
    ],
    ("examples/viscoelasticity/wiechert_relaxation_composed.i", "model"): [
        "update.residual.spring_1.weight_0",
        "update.residual.spring_1.weight_1",
        "update.residual.spring_1.offset",
        "update.residual.spring_2.weight_0",
        "update.residual.spring_2.weight_1",
        "update.residual.spring_2.offset",
        "update.residual.spring_3.weight_0",
        "update.residual.spring_3.weight_1",
        "update.residual.spring_3.offset",
        "update.residual.dashpot_1.eta",
        "update.residual.dashpot_2.eta",
        "update.residual.dashpot_3.eta",
        "equilibrium_spring.weight_0",
        "equilibrium_spring.offset",
        "total.weight_0",
        "total.offset",
    ],
    ("examples/viscoelasticity/zener_relaxation.i", "model"): [
        "update.residual.zener.Einf",
        "update.residual.zener.EM",
        "update.residual.zener.etaM",
    ],
    ("examples/viscoelasticity/zener_relaxation_composed.i", "model"): [
        "update.residual.maxwell_spring.weight_0",
        "update.residual.maxwell_spring.weight_1",
        "update.residual.maxwell_spring.offset",
        "update.residual.dashpot.eta",
        "equilibrium_spring.weight_0",
        "equilibrium_spring.offset",
        "total.weight_0",
        "total.offset",
    ],
    ("examples/viscoplasticity/chaboche.i", "model"): [
        "implicit_rate.isoharden.R",
        "implicit_rate.isoharden.d",
        "implicit_rate.kinharden.weight_0",
        "implicit_rate.kinharden.offset",
        "implicit_rate.overstress.weight_0",
        "implicit_rate.overstress.weight_1",
        "implicit_rate.overstress.offset",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.flow_rate.eta",
        "implicit_rate.flow_rate.n",
        "implicit_rate.X1rate.C",
        "implicit_rate.X1rate.g",
        "implicit_rate.X1rate.A",
        "implicit_rate.X1rate.a",
        "implicit_rate.X2rate.C",
        "implicit_rate.X2rate.g",
        "implicit_rate.X2rate.A",
        "implicit_rate.X2rate.a",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/viscoplasticity/creep_stress_control.i", "model"): [
        "implicit_rate.isoharden.R",
        "implicit_rate.isoharden.d",
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.flow_rate.eta",
        "implicit_rate.flow_rate.n",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
    ("examples/viscoplasticity/gurson.i", "model"): [
        "implicit_rate.normality.flow.yield_surface.sy",
        "implicit_rate.normality.flow.yield_surface.q1",
        "implicit_rate.normality.flow.yield_surface.q2",
        "implicit_rate.normality.flow.yield_surface.q3",
        "implicit_rate.flow_rate.eta",
        "implicit_rate.flow_rate.n",
        "implicit_rate.Eerate.weight_0",
        "implicit_rate.Eerate.weight_1",
        "implicit_rate.Eerate.offset",
        "implicit_rate.elasticity.E",
        "implicit_rate.elasticity.nu",
    ],
}


@pytest.mark.parametrize("key", sorted(V3_NAMES), ids=lambda k: f"{k[0]}:{k[1]}")
def test_inputs_report_v3_names(key: tuple[str, str]) -> None:
    path, model = key
    m = neml2.load_model(ROOT / path, model)
    assert [n for n, _ in m.named_parameters()] == V3_NAMES[key]


#: scenarios written for this project's tests, with no NEML2 v3 input to take names from
NOT_FROM_V3 = {
    "scenarios/scalar_implicit.i",
    "scenarios/scalar_substep.i",
    "scenarios/sub_batch.i",
}


def test_every_input_is_listed() -> None:
    """Every input with models under scenarios (but the project's own test scenarios) and
    examples has its v3 names written out."""
    files = {p for p, _ in V3_NAMES}
    found = {
        str(p.relative_to(ROOT))
        for d in ("scenarios", "examples")
        for p in (ROOT / d).rglob("*.i")
        if "[Models]" in p.read_text()
    }
    assert found.issuperset(NOT_FROM_V3)
    assert files == found - NOT_FROM_V3


SHARED = """
[Models]
  [a]
    type = ScalarLinearCombination
    from = 'x'
    to = 'y'
    weights = '2'
  []
  [b]
    type = ScalarLinearCombination
    from = 'y'
    to = 'z'
    weights = '3'
  []
  [inner]
    type = ComposedModel
    models = 'a b'
  []
  [c]
    type = ScalarLinearCombination
    from = 'z y'
    to = 'w'
    weights = '1 1'
  []
  [outer]
    type = ComposedModel
    models = 'c a inner'
  []
  [outer2]
    type = ComposedModel
    models = 'c inner a'
  []
[]
"""


@pytest.mark.parametrize(
    ("model", "children", "names"),
    [
        ("outer", ["a", "inner", "c"],
         ["a.weight_0", "a.offset", "inner.b.weight_0", "inner.b.offset", "c.weight_0",
          "c.weight_1", "c.offset"]),
        ("outer2", ["inner", "a", "c"],
         ["inner.a.weight_0", "inner.a.offset", "inner.b.weight_0", "inner.b.offset",
          "c.weight_0", "c.weight_1", "c.offset"]),
    ],
)  # fmt: skip
def test_shared_submodule_reported_under_first_path_in_evaluation_order(
    model: str, children: list[str], names: list[str]
) -> None:
    """Children are registered in evaluation order (ties: ``models`` order), as in v3."""
    m = neml2.load_string(SHARED).get_model(model)
    assert [n for n, _ in m.named_children()] == children
    assert [n for n, _ in m.named_parameters()] == names
    # the other path still reaches the shared module; lookups canonicalize it
    if model == "outer2":
        assert m.parameter_name("a.weight_0") == "inner.a.weight_0"


PREDICTED = """
[Models]
  [x2]
    type = CopyScalar
    from = 'x'
    to = 'x2'
  []
  [rate]
    type = ScalarMultiplication
    from = 'x x2'
    to = 'x_rate'
    scaling = -2.0
  []
  [integrate]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'x'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'x2 rate integrate'
  []
  [guess]
    type = ScalarLinearCombination
    from = 'x~1'
    to = 'x'
    weights = '0.9'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'guess'
  []
[]
[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'x'
  []
[]
[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
  []
  [lu]
    type = DenseLU
  []
[]
"""


def test_implicit_update_reports_residual_model_before_predictor() -> None:
    m = neml2.load_string(PREDICTED).get_model("model")
    assert [n for n, _ in m.named_parameters()] == [
        "implicit_rate.rate.scaling", "predictor.weight_0", "predictor.offset"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("type = GTNYieldFunction\n yield_stress = 1\n q1 = 1\n q2 = 1\n q3 = 1",
         ["sy", "q1", "q2", "q3"]),
        ("type = ScalarPNorm\n from = 'a b'\n exponent = 1\n weights = '1 1'",
         ["_p", "weight_0", "weight_1"]),
        ("type = ScalarConstantParameter\n value = 1", ["value"]),
        ("type = SR2ParameterToVariable\n from = '1 2 3 4 5 6'", ["param"]),
        ("type = ArrheniusParameter\n reference_value = 1\n activation_energy = 1\n"
         " ideal_gas_constant = 1", ["p0", "Q"]),
        ("type = WiechertElement\n equilibrium_modulus = 1\n modulus_1 = 1\n viscosity_1 = 1\n"
         " modulus_2 = 1\n viscosity_2 = 1", ["Einf", "E1", "eta1", "E2", "eta2"]),
        ("type = SalehaniIraniTraction\n normal_characteristic_length = 1\n"
         " tangential_characteristic_length = 1\n normal_strength = 1\n shear_strength = 1\n"
         " penalty_stiffness = 1", ["delta_u0_n", "delta_u0_t", "Tmax_n", "Tmax_t", "Kpen"]),
    ],
    ids=lambda v: v.split("\n")[0][7:] if isinstance(v, str) else None,
)  # fmt: skip
def test_leaf_storage_names(body: str, names: list[str]) -> None:
    m = neml2.load_string(f"[Models]\n [m]\n {body}\n []\n[]\n").get_model("m")
    assert [n for n, _ in m.named_parameters()] == names


def test_storage_table_matches_the_schemas() -> None:
    """Every row of a registered type names one of its parameter(s) options."""
    models = registry.types("Models")
    checked = 0
    for tname, row in V3_STORAGE.items():
        cls = models.get(tname)
        if cls is None:
            continue
        schema = getattr(cls, "hit", None)
        assert schema is not None
        for key in row:
            f = schema.field(key)
            assert f is not None and f.kind in ("parameter", "parameters"), (tname, key)
            checked += 1
    assert checked > 80


def test_constant_parameter_value_is_stored_as_value() -> None:
    m = neml2.load_string(
        "[Models]\n [k]\n type = ScalarConstantParameter\n value = 4\n []\n[]\n"
    ).get_model("k")
    assert [n for n, _ in m.named_parameters()] == ["value"]
    assert [n for n in m.state_dict()] == ["value"]
    assert float(m.value({})["k"].data.detach()) == 4.0  # Model.value() is still the method
    out = functional_call(m, {"value": torch.tensor(7.0, dtype=torch.float64)}, ())
    assert float(out.data.detach()) == 7.0
    m.set_parameter("value", 5.0)
    assert float(m().data.detach()) == 5.0


CHABOCHE = ROOT / "scenarios" / "chaboche.i"


def test_set_parameter_by_v3_name_and_alias() -> None:
    m = neml2.load_model(CHABOCHE, "model")
    m.set_parameter("implicit_rate.flow_rate.eta", 150.0)
    m.set_parameter("implicit_rate.isoharden.saturated_hardening", 3.0)  # option key alias
    m.set_parameter("implicit_rate.yield_surface.sy", 6.0)  # other path to the shared module
    p = {n: v.detach() for n, v in m.named_parameters()}
    assert float(p["implicit_rate.flow_rate.eta"]) == 150.0
    assert float(p["implicit_rate.isoharden.R"]) == 3.0
    assert float(p["implicit_rate.normality.flow.yield_surface.sy"]) == 6.0
    assert m.parameter_name("implicit_rate.flow_rate.reference_stress") == (
        "implicit_rate.flow_rate.eta"
    )
    with pytest.raises(KeyError, match=re.escape("implicit_rate.isoharden.R")):
        m.set_parameter("implicit_rate.isoharden.nope", 1.0)


def test_list_items_alias_and_param_jacobian_names() -> None:
    m = neml2.load_string(
        "[Models]\n [n]\n type = ScalarPNorm\n from = 'a b'\n exponent = 2\n"
        " weights = '1 2'\n []\n[]\n"
    ).get_model("n")
    assert m.parameter_name("exponent") == "_p"
    x = {"a": torch.tensor(3.0, dtype=torch.float64), "b": torch.tensor(4.0, dtype=torch.float64)}
    _, jac = m.param_jacobian(x, params=["exponent", "weight_1"])
    assert sorted(jac["to"]) == ["_p", "weight_1"]
