# Rate-independent J2 perfect plasticity with a temperature-dependent yield stress
# sy(T) = sy0 exp(-Q / (R T)) (ArrheniusParameter; Q < 0, so the yield stress falls as T rises).
# Backward Euler with a MinMapComplementarity consistency residual. Load: cyclic uniaxial strain
# while the temperature ramps from T0 to T1, a batch of two amplitudes.
#
#   neml2-run perfect_temperature.i driver --csv perfect_temperature.csv
#   neml2-run perfect_temperature.i regression
nsteps = 100
E = 200000.0
nu = 0.3
sy0 = 50.0
Q = -5000.0
R = 8.314
T0 = 300.0
T1 = 800.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, 1, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [temperatures]
    type = Python
    expr = 'Scalar(${T0} + (${T1} - ${T0}) * times.data)'
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
  [yield_stress]
    type = ArrheniusParameter
    temperature = 'T'
    reference_value = ${sy0}
    activation_energy = ${Q}
    ideal_gas_constant = ${R}
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
    yield_stress = 'yield_stress'
  []
  [flow]
    type = ComposedModel
    models = 'vonmises yield_surface'
  []
  [normality]
    type = Normality
    model = 'flow'
    function = 'yield_function'
    from = 'mandel_stress'
    to = 'flow_direction'
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
    models = 'yield_stress mandel_stress vonmises yield_surface normality Eprate Erate Eerate elasticity integrate_stress consistency'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'stress'
    unknowns_Scalar = 'flow_rate'
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
    unknowns = 'stress flow_rate'
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
    prescribed_Scalar_names = 'T'
    prescribed_Scalar_values = 'temperatures'
  []
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/perfect_temperature.pt'
  []
[]
