# Zener (standard linear solid) element under a strain step held constant (relaxation).
# Exact response: stress = (E_inf + E_M exp(-E_M t / eta_M)) strain_0.
#
#   neml2-run zener_relaxation.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E_inf = 400.0
E_M = 600.0
eta_M = 1200.0

[Tensors]
  [times]
    type = Python
    expr = 'Scalar(torch.linspace(0, ${tend}, ${nsteps} + 1, dtype=torch.float64))'
  []
  [strains]
    type = Python
    expr = 'SR2(torch.tensor([[0.0] * 6] + [[0.01, -0.002, 0.003, 0.004, 0.0, -0.001]] * ${nsteps}, dtype=torch.float64))'
  []
[]

[Models]
  [zener]
    type = ZenerElement
    equilibrium_modulus = ${E_inf}
    maxwell_modulus = ${E_M}
    maxwell_viscosity = ${eta_M}
  []
  [integrate]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain'
  []
  [residual]
    type = ComposedModel
    models = 'zener integrate'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'viscous_strain'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [model]
    type = ComposedModel
    models = 'update zener'
    additional_outputs = 'viscous_strain'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'viscous_strain'
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
    prescribed_SR2_names = 'strain'
    prescribed_SR2_values = 'strains'
  []
[]
