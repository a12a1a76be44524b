# Mixed stress/strain control: uniaxial STRESS (eps_xx prescribed, all other stress components
# zero) for rate-independent J2 plasticity with combined linear isotropic (h = K ep) and linear
# kinematic (X = H Kp) hardening, MinMapComplementarity consistency residual. MixedControlSetup
# assembles stress and strain from the prescribed 'fixed_values' (where control > 0.5: stress,
# else strain) and the unknown 'mixed_state' (the complementary components). Load: a tension-
# compression cycle eps_xx = eps_max sin(2 pi t), a batch of two amplitudes.
#
#   neml2-run mixed_control.i driver --csv mixed_control.csv --plot mixed_control.png
#   neml2-run mixed_control.i regression
nsteps = 100
E = 200000.0
nu = 0.3
sy = 200.0
H = 20000.0
K = 10000.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [controls]
    type = Python
    expr = 'SR2(torch.tensor([0.0, 1, 1, 1, 1, 1], dtype=torch.float64).expand(${nsteps} + 1, 2, 6).clone())'
  []
  [fixed]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = torch.tensor([0.004, 0.008], dtype=t.dtype) * torch.sin(2 * math.pi * t)
      result = SR2(e)'''
  []
[]

[Models]
  [setup]
    type = MixedControlSetup
    control = 'control'
    x_above = 'fixed_values'
    x_below = 'mixed_state'
    y = 'stress'
    z = 'strain'
  []
  [isoharden]
    type = LinearIsotropicHardening
    hardening_modulus = ${K}
  []
  [kinharden]
    type = LinearKinematicHardening
    hardening_modulus = ${H}
  []
  [mandel_stress]
    type = IsotropicMandelStress
    cauchy_stress = 'stress'
  []
  [overstress]
    type = SR2LinearCombination
    from = 'mandel_stress back_stress'
    to = 'overstress'
    weights = '1 -1'
  []
  [vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'overstress'
    invariant = 'effective_stress'
  []
  [yield_surface]
    type = YieldFunction
    yield_stress = ${sy}
    isotropic_hardening = 'isotropic_hardening'
  []
  [flow]
    type = ComposedModel
    models = 'overstress vonmises yield_surface'
  []
  [normality]
    type = Normality
    model = 'flow'
    function = 'yield_function'
    from = 'mandel_stress back_stress isotropic_hardening'
    to = 'flow_direction kinematic_hardening_direction isotropic_hardening_direction'
  []
  [eprate]
    type = AssociativeIsotropicPlasticHardening
  []
  [integrate_ep]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'equivalent_plastic_strain'
  []
  [Kprate]
    type = AssociativeKinematicPlasticHardening
  []
  [integrate_Kp]
    type = SR2BackwardEulerTimeIntegration
    variable = 'kinematic_plastic_strain'
  []
  [Eprate]
    type = AssociativePlasticFlow
  []
  [Erate]
    type = SR2VariableRate
    variable = 'strain'
  []
  [Eerate]
    type = SR2LinearCombination
    from = 'strain_rate plastic_strain_rate'
    to = 'elastic_strain_rate'
    weights = '1 -1'
  []
  [elasticity]
    type = LinearIsotropicElasticity
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
    rate_form = true
  []
  [integrate_stress]
    type = SR2BackwardEulerTimeIntegration
    variable = 'stress'
  []
  [consistency]
    type = MinMapComplementarity
    a = 'yield_function'
    b = 'flow_rate'
    complementarity = 'flow_rate_residual'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'setup isoharden kinharden mandel_stress overstress vonmises yield_surface normality eprate Kprate Eprate Erate Eerate elasticity integrate_ep integrate_Kp integrate_stress consistency'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'mixed_state kinematic_plastic_strain'
    unknowns_Scalar = 'flow_rate equivalent_plastic_strain'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
  [model]
    type = ComposedModel
    models = 'update setup'
    additional_outputs = 'mixed_state'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'mixed_state flow_rate equivalent_plastic_strain kinematic_plastic_strain'
    residuals = 'stress_residual flow_rate_residual equivalent_plastic_strain_residual kinematic_plastic_strain_residual'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-10
    rel_tol = 1e-12
  []
  [lu]
    type = DenseLU
  []
[]

[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_SR2_names = 'control fixed_values'
    prescribed_SR2_values = 'controls fixed'
  []
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/mixed_control.pt'
  []
[]
