# J2 viscoplasticity (Perzyna) with isotropic and kinematic hardening whose rates are the sum of a
# hardening rate and a power-law static recovery rate; backward Euler, ImplicitUpdate, zero ICs.
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 10, 21, dtype=torch.float64)[:, None].expand(-1, 3).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      ramp = torch.clamp(t / 5.0, max=1.0)
      e[..., 0] = torch.tensor([0.002, 0.005, 0.01], dtype=t.dtype) * ramp
      e[..., 1] = -0.5 * e[..., 0]
      e[..., 2] = -0.5 * e[..., 0]
      result = SR2(e)'''
  []
[]

[Models]
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
    yield_stress = 50
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
    from = 'mandel_stress'
    to = 'flow_direction'
  []
  [flow_rate]
    type = PerzynaPlasticFlowRate
    reference_stress = 100
    exponent = 4
  []
  [iso_hard]
    type = SlopeSaturationVoceIsotropicHardening
    isotropic_hardening_rate = 'iso_hard_rate'
    saturated_hardening = 80
    initial_hardening_rate = 5000
  []
  [iso_rec]
    type = PowerLawIsotropicHardeningStaticRecovery
    isotropic_hardening_rate = 'iso_rec_rate'
    tau = 200
    n = 3
  []
  [iso_rate]
    type = ScalarLinearCombination
    from = 'iso_hard_rate iso_rec_rate'
    to = 'isotropic_hardening_rate'
  []
  [kin_hard]
    type = FredrickArmstrongPlasticHardening
    back_stress_rate = 'kin_hard_rate'
    C = 20000
    g = 200
  []
  [kin_rec]
    type = PowerLawKinematicHardeningStaticRecovery
    back_stress_rate = 'kin_rec_rate'
    tau = 150
    n = 2.5
  []
  [kin_rate]
    type = SR2LinearCombination
    from = 'kin_hard_rate kin_rec_rate'
    to = 'back_stress_rate'
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
    coefficients = '1e5 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
    rate_form = true
  []
  [integrate_stress]
    type = SR2BackwardEulerTimeIntegration
    variable = 'stress'
  []
  [integrate_h]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'isotropic_hardening'
  []
  [integrate_X]
    type = SR2BackwardEulerTimeIntegration
    variable = 'back_stress'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'mandel_stress overstress vonmises yield_surface normality flow_rate iso_hard iso_rec iso_rate kin_hard kin_rec kin_rate Eprate Erate Eerate elasticity integrate_stress integrate_h integrate_X'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'stress isotropic_hardening back_stress'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-10
    rel_tol = 1e-08
  []
  [lu]
    type = DenseLU
  []
[]

[Models]
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'stress back_stress'
    unknowns_Scalar = 'isotropic_hardening'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
[]

[Drivers]
  [driver]
    type = TransientDriver
    model = 'model'
    prescribed_time = 'times'
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
