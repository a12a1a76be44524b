# Porous viscoplasticity: Gurson-Tvergaard-Needleman yield function
#   f = (s_vm / sy)^2 + 2 q1 phi cosh(q2 I1 / (2 sy)) - (1 + q3 phi^2)
# with a Perzyna flow rule (f is dimensionless, so the reference "stress" eta is too), associative
# flow and void growth by cavitation, d phi / dt = (1 - phi) tr(d eps_p / dt). Backward Euler;
# unknowns stress and void fraction (initial condition phi0). Load: triaxial straining
# (eps_xx = 2 eps_yy = 2 eps_zz, monotonic), a batch of two initial porosities.
#
#   neml2-run gurson.i driver --csv gurson.csv --plot gurson.png --plot-x t --plot-y void_fraction
#   neml2-run gurson.i regression
nsteps = 100
tend = 1.0
E = 200000.0
nu = 0.3
sy = 200.0
q1 = 1.5
q2 = 1.0
q3 = 2.25
eta = 0.01
n = 2.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64)[:, None].expand(-1, 2).clone())'
  []
  [strains]
    type = Python
    expr = '''
      t = times.data
      e = torch.zeros(t.shape + (6,), dtype=t.dtype)
      e[..., 0] = 0.02 * t
      e[..., 1] = 0.01 * t
      e[..., 2] = 0.01 * t
      result = SR2(e)'''
  []
  [phi0]
    type = Python
    expr = 'Scalar(torch.tensor([0.01, 0.05], dtype=torch.float64))'
  []
[]

[Models]
  [mandel_stress]
    type = IsotropicMandelStress
    cauchy_stress = 'stress'
  []
  [vonmises]
    type = SR2Invariant
    invariant_type = 'VONMISES'
    tensor = 'mandel_stress'
    invariant = 'flow_invariant'
  []
  [hydrostatic]
    type = SR2Invariant
    invariant_type = 'I1'
    tensor = 'mandel_stress'
    invariant = 'poro_invariant'
  []
  [yield_surface]
    type = GTNYieldFunction
    yield_stress = ${sy}
    q1 = ${q1}
    q2 = ${q2}
    q3 = ${q3}
  []
  [flow]
    type = ComposedModel
    models = 'vonmises hydrostatic yield_surface'
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
    reference_stress = ${eta}
    exponent = ${n}
  []
  [Eprate]
    type = AssociativePlasticFlow
  []
  [cavitation]
    type = GursonCavitation
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
  [integrate_void_fraction]
    type = ScalarBackwardEulerTimeIntegration
    variable = 'void_fraction'
  []
  [implicit_rate]
    type = ComposedModel
    models = 'mandel_stress vonmises hydrostatic yield_surface normality flow_rate Eprate cavitation Erate Eerate elasticity integrate_stress integrate_void_fraction'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'stress'
    unknowns_Scalar = 'void_fraction'
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
    unknowns = 'stress void_fraction'
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
    ic_Scalar_names = 'void_fraction'
    ic_Scalar_values = 'phi0'
  []
  [regression]
    type = TransientRegression
    driver = 'driver'
    reference = 'gold/gurson.pt'
  []
[]
