# Perzyna J2 viscoplasticity, perfect plasticity, with a consistency (coordinate-descent)
# predictor: the equivalent plastic strain rate is guessed from the radial-return condensation of
# the yield function, f(rate) = sqrt(2/3) (s_tr - 3 G dt rate - sy) ~ b - A rate, solved with the
# Perzyna law by CoordinateDescentPredictor; plastic_strain = plastic_strain~1 + dt rate N_tr is the
# Newton guess of the backward-Euler plastic-strain residual. Stiff rate law (eta = 5 MPa, n = 2)
# under uniaxial-strain-like (isochoric) loading, a batch of two strain rates.
nbatch = 2
nsteps = 5
E = 200000.0
nu = 0.3
sy = 100.0
eta = 5.0
n = 2.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 0.5, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, ${nbatch}).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = torch.tensor([0.003, 0.006], dtype=t.dtype) * t
      e[..., 1] = -0.5 * e[..., 0]
      e[..., 2] = -0.5 * e[..., 0]
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
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'elastic_strain'
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
  [yieldf]
    type = YieldFunction
    yield_stress = ${sy}
  []
  [flow_rate]
    type = PerzynaPlasticFlowRate
    reference_stress = ${eta}
    exponent = ${n}
  []
  [flow_dir]
    type = AssociativeJ2FlowDirection
  []
  [Eprate]
    type = AssociativePlasticFlow
  []
  [integrate_Ep]
    type = SR2BackwardEulerTimeIntegration
    variable = 'plastic_strain'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'elastic_strain elasticity mandel_stress vonmises yieldf flow_rate flow_dir Eprate integrate_Ep'
  []
  # consistency (coordinate-descent) predictor
  [trial_elastic_strain]
    type = SR2LinearCombination
    from = 'strain plastic_strain~1'
    to = 'trial_elastic_strain'
    weights = '1 -1'
  []
  [trial_elasticity]
    type = LinearIsotropicElasticity
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
    strain = 'trial_elastic_strain'
    stress = 'trial_stress'
  []
  [trial_mandel]
    type = IsotropicMandelStress
    cauchy_stress = 'trial_stress'
    mandel_stress = 'trial_mandel_stress'
  []
  [trial_vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'trial_mandel_stress'
    invariant = 'elastic_trial_stress'
  []
  [ep_fe]
    type = ScalarForwardEulerTimeIntegration
    variable = 'equivalent_plastic_strain'
    rate = 'flow_rate'
  []
  [trial_update]
    type = LinearIsotropicElasticJ2TrialStressUpdate
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [trial_yield]
    type = YieldFunction
    yield_stress = ${sy}
    effective_stress = 'updated_trial_stress'
  []
  [path]
    type = ComposedModel
    models = 'ep_fe trial_update trial_yield'
  []
  [condense]
    type = RateCondensation
    model = 'path'
    rate = 'flow_rate'
    driving_force = 'yield_function'
  []
  [cd]
    type = CoordinateDescentPredictor
    rate_law = 'flow_rate'
    driving_force_input = 'yield_function'
    rate = 'flow_rate'
  []
  [trial_dir]
    type = AssociativeJ2FlowDirection
    mandel_stress = 'trial_mandel_stress'
  []
  [trial_Eprate]
    type = AssociativePlasticFlow
  []
  [trial_Ep]
    type = SR2ForwardEulerTimeIntegration
    variable = 'plastic_strain'
  []
  [predictor]
    type = ComposedModel
    models = 'trial_elastic_strain trial_elasticity trial_mandel trial_vonmises condense cd trial_dir trial_Eprate trial_Ep'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
  [model]
    type = ComposedModel
    models = 'update elastic_strain elasticity mandel_stress vonmises yieldf flow_rate'
    additional_outputs = 'plastic_strain stress'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'plastic_strain'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = 1e-10
    rel_tol = 1e-8
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
