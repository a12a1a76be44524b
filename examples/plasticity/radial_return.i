# Radial return for rate-independent J2 plasticity with linear isotropic hardening: a scalar
# implicit solve for the equivalent plastic strain ep only. The elastic trial stress
# s_tr = vonmises(C : (strain - plastic_strain~1)) is updated by
# LinearIsotropicElasticJ2TrialStressUpdate, s = s_tr - 3 G (ep - ep~1), and the consistency conditions f(s, ep) <= 0, ep_rate >= 0,
# f * ep_rate = 0 form a MinMapComplementarity residual. After the solve the plastic strain is
# advanced along the trial flow direction, plastic_strain = plastic_strain~1 + (ep - ep~1) N_tr.
# Load: cyclic uniaxial strain, a batch of two amplitudes.
#
#   neml2-run radial_return.i driver --csv radial_return.csv --plot radial_return.png
#   neml2-run radial_return.i regression
nsteps = 100
E = 200000.0
nu = 0.3
sy = 200.0
K = 10000.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = torch.tensor([0.004, 0.008], dtype=t.dtype) * torch.sin(2 * math.pi * t)
      result = SR2(e)'''
  []
[]

[Models]
  # elastic predictor
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
  [trial_mandel_stress]
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
  # scalar return mapping
  [trial_update]
    type = LinearIsotropicElasticJ2TrialStressUpdate
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [isoharden]
    type = LinearIsotropicHardening
    hardening_modulus = ${K}
  []
  [yield_surface]
    type = YieldFunction
    yield_stress = ${sy}
    effective_stress = 'updated_trial_stress'
    isotropic_hardening = 'isotropic_hardening'
  []
  [eprate]
    type = ScalarVariableRate
    variable = 'equivalent_plastic_strain'
  []
  [consistency]
    type = MinMapComplementarity
    a = 'yield_function'
    b = 'equivalent_plastic_strain_rate'
    complementarity = 'equivalent_plastic_strain_residual'
  []
  [return_map]
    type = ComposedModel
    models = 'trial_update isoharden yield_surface eprate consistency'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_Scalar = 'equivalent_plastic_strain'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
  # plastic corrector
  [flow_direction]
    type = AssociativeJ2FlowDirection
    mandel_stress = 'trial_mandel_stress'
  []
  [Eprate]
    type = AssociativePlasticFlow
    flow_rate = 'equivalent_plastic_strain_rate'
  []
  [integrate_Ep]
    type = SR2ForwardEulerTimeIntegration
    variable = 'plastic_strain'
  []
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
  [model]
    type = ComposedModel
    models = 'trial_elastic_strain trial_elasticity trial_mandel_stress trial_vonmises update flow_direction eprate Eprate integrate_Ep elastic_strain elasticity'
    additional_outputs = 'equivalent_plastic_strain plastic_strain'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'return_map'
    unknowns = 'equivalent_plastic_strain'
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
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/radial_return.pt'
  []
[]
