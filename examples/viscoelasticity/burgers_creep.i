# Burgers element (Maxwell in series with Kelvin-Voigt) under a constant applied stress (creep).
# Unknowns: strain and the two internal strains. Exact response:
#   strain = sigma_0 / E_M + sigma_0 t / eta_M + sigma_0 / E_K (1 - exp(-E_K t / eta_K)).
#
#   neml2-run burgers_creep.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E_M = 1000.0
eta_M = 8000.0
E_K = 500.0
eta_K = 1000.0

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
  [burgers]
    type = BurgersElement
    maxwell_modulus = ${E_M}
    maxwell_viscosity = ${eta_M}
    kelvin_modulus = ${E_K}
    kelvin_viscosity = ${eta_K}
  []
  [integrate_maxwell]
    type = SR2BackwardEulerTimeIntegration
    variable = 'maxwell_viscous_strain'
  []
  [integrate_kelvin]
    type = SR2BackwardEulerTimeIntegration
    variable = 'kelvin_voigt_strain'
  []
  [equilibrium]
    type = SR2LinearCombination
    from = 'stress applied_stress'
    weights = '1 -1'
    to = 'strain_residual'
  []
  [residual]
    type = ComposedModel
    models = 'burgers integrate_maxwell integrate_kelvin equilibrium'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'strain maxwell_viscous_strain kelvin_voigt_strain'
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
    unknowns = 'strain maxwell_viscous_strain kelvin_voigt_strain'
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
