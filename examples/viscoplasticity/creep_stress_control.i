# Stress-controlled creep: J2 viscoplasticity with a Perzyna flow rule and Voce isotropic
# hardening. The uniaxial stress ramps to smax (200 and 220) over the first 'nramp' steps and is
# then held; the strain is the unknown (the stress residual of the rate-form elasticity
# determines it). Once the hardening saturates the creep rate is steady:
#   d eps_xx / dt = sqrt(2/3) (sqrt(2/3) (smax - sy - R) / eta)^n.
# A batch of two stress levels.
#
#   neml2-run creep_stress_control.i driver --csv creep.csv \
#     --plot creep.png --plot-x t --plot-y strain_xx
#   neml2-run creep_stress_control.i regression
nsteps = 100
nramp = 5
tend = 10.0
E = 200000.0
nu = 0.3
sy = 100.0
R = 50.0
d = 500.0
eta = 200.0
n = 3.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [ramp]
    type = Python
    expr = 'Scalar(torch.clamp(torch.arange(${nsteps} + 1, dtype=torch.float64) / ${nramp}, max=1.0))'
  []
  [stresses]
    type = Python
    expr = '''
      s = torch.zeros(times.data.shape + (6,), dtype=times.data.dtype)
      s[..., 0] = torch.tensor([200.0, 220.0], dtype=s.dtype) * ramp.data[:, None]
      result = SR2(s)'''
  []
[]

[Models]
  [isoharden]
    type = VoceIsotropicHardening
    saturated_hardening = ${R}
    saturation_rate = ${d}
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
    yield_stress = ${sy}
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
  [flow_rate]
    type = PerzynaPlasticFlowRate
    reference_stress = ${eta}
    exponent = ${n}
  []
  [eprate]
    type = AssociativeIsotropicPlasticHardening
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
  [integrate_ep]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'equivalent_plastic_strain'
  []
  [integrate_stress]
    type = SR2BackwardEulerTimeIntegration
    variable = 'stress'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'isoharden mandel_stress vonmises yield_surface normality flow_rate eprate Eprate Erate Eerate elasticity integrate_stress integrate_ep'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'strain'
    unknowns_Scalar = 'equivalent_plastic_strain'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq_sys'
    solver = 'newton'
    predictor = 'predictor'
  []
[]

[EquationSystems]
  [eq_sys]
    type = NonlinearSystem
    model = 'implicit_rate'
    unknowns = 'strain equivalent_plastic_strain'
    residuals = 'stress_residual equivalent_plastic_strain_residual'
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
    prescribed_SR2_names = 'stress'
    prescribed_SR2_values = 'stresses'
  []
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/creep_stress_control.pt'
  []
[]
