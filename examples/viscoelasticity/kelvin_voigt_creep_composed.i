# Kelvin-Voigt element composed from a spring and a LinearDashpot in parallel under a constant
# applied stress (creep): the dashpot carries sigma - K strain and sets the strain rate.
# Exact response: strain = sigma_0 / K (1 - exp(-K t / eta)).
#
#   neml2-run kelvin_voigt_creep_composed.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
K = 500.0
eta = 1000.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64))'
  []
  [stresses]
    type = Python
    expr = 'SR2(torch.tensor([[0.0] * 6] + [[10.0, -2.0, 3.0, 4.0, 0.0, -1.0]] * ${nsteps}, dtype=torch.float64))'
  []
[]

[Models]
  [dashpot_stress]
    type = SR2LinearCombination
    from = 'applied_stress strain'
    weights = '1 -${K}'
    to = 'dashpot_stress'
  []
  [dashpot]
    type = LinearDashpot
    stress = 'dashpot_stress'
    viscous_strain_rate = 'strain_rate'
    viscosity = ${eta}
  []
  [integrate]
    type = SR2BackwardEulerTimeIntegration
    variable = 'strain'
  []
  [residual]
    type = ComposedModel
    models = 'dashpot_stress dashpot integrate'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'strain'
  []
  [model]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'strain'
  []
[]

[Solvers]
  [newton]
    type = Newton
    linear_solver = 'lu'
    abs_tol = ${abs_tol}
    rel_tol = ${rel_tol}
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
    prescribed_SR2_names = 'applied_stress'
    prescribed_SR2_values = 'stresses'
  []
[]
