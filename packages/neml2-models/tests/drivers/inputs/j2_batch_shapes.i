# Rate-independent J2 plasticity (linear isotropic hardening), strain-driven with a batch of 20
# amplitudes (uniaxial-like, eps_xx = a sin(2 pi t)); ImplicitUpdate for the plastic strain, the
# flow rate (MinMapComplementarity) and the equivalent plastic strain, stress explicit from
# strain - plastic_strain. Old state starts as unbatched zeros; the first steps are elastic for
# every amplitude (the solve converges without a Newton step), later ones yield.
[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, 21, dtype=torch.float64)[:, None].expand(-1, 20).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = torch.linspace(0.001, 0.008, 20, dtype=t.dtype) * torch.sin(2 * math.pi * t)
      e[..., 1] = -0.3 * e[..., 0]
      e[..., 2] = -0.3 * e[..., 0]
      result = SR2(e)'''
  []
[]

[Models]
  [elastic_strain]
    type = SR2LinearCombination
    from = 'strain plastic_strain'
    to = 'elastic_strain'
    weights = '1 -1'
  []
  [elasticity]
    type = LinearIsotropicElasticity
    coefficients = '200000 0.3'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
  []
  [isoharden]
    type = LinearIsotropicHardening
    hardening_modulus = 10000
  []
  [mandel_stress]
    type = IsotropicMandelStress
    cauchy_stress = 'stress'
  []
  [vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'mandel_stress'
    invariant = 'effective_stress'
  []
  [yield_surface]
    type = YieldFunction
    yield_stress = 1200
    isotropic_hardening = 'isotropic_hardening'
  []
  [flow]
    type = ComposedModel
    models = 'vonmises yield_surface'
  []
  [normality]
    type = Normality
    model = 'flow'
    function = 'yield_function'
    from = 'mandel_stress isotropic_hardening'
    to = 'flow_direction isotropic_hardening_direction'
  []
  [eprate]
    type = AssociativeIsotropicPlasticHardening
  []
  [Eprate]
    type = AssociativePlasticFlow
  []
  [integrate_Ep]
    type = SR2BackwardEulerTimeIntegration
    variable = 'plastic_strain'
  []
  [integrate_ep]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'equivalent_plastic_strain'
  []
  [consistency]
    type = MinMapComplementarity
    a = 'yield_function'
    b = 'flow_rate'
    complementarity = 'flow_rate_residual'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'elastic_strain elasticity isoharden mandel_stress vonmises yield_surface normality eprate Eprate integrate_Ep integrate_ep consistency'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'plastic_strain'
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
    models = 'update elastic_strain elasticity'
    additional_outputs = 'plastic_strain'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'plastic_strain flow_rate equivalent_plastic_strain'
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
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
