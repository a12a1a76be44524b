# Maxwell element (spring and dashpot in series) composed from a LinearIsotropicElasticity spring
# and a LinearDashpot under a constant applied stress (creep). Strain and viscous strain are the
# unknowns of the backward-Euler update; the equilibrium residual is stress - applied_stress.
# Exact response: strain = C^-1 : sigma_0 + sigma_0 t / eta (backward Euler is exact here).
#
#   neml2-run maxwell_creep.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E = 1000.0
nu = 0.25
eta = 2500.0

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
  [elastic_strain]
    type = SR2LinearCombination
    from = 'strain viscous_strain'
    weights = '1 -1'
    to = 'elastic_strain'
  []
  [spring]
    type = LinearIsotropicElasticity
    strain = 'elastic_strain'
    coefficients = '${E} ${nu}'
    coefficient_types = 'YOUNGS_MODULUS POISSONS_RATIO'
  []
  [dashpot]
    type = LinearDashpot
    viscosity = ${eta}
  []
  [integrate]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain'
  []
  [equilibrium]
    type = SR2LinearCombination
    from = 'stress applied_stress'
    weights = '1 -1'
    to = 'strain_residual'
  []
  [residual]
    type = ComposedModel
    models = 'elastic_strain spring dashpot integrate equilibrium'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'strain viscous_strain'
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
    unknowns = 'strain viscous_strain'
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
