# Wiechert (generalized Maxwell) element with two Maxwell arms under a strain step held constant.
# Exact response (Prony series): stress = (E_inf + sum_i E_i exp(-E_i t / eta_i)) strain_0.
#
#   neml2-run wiechert_relaxation.i driver
nsteps = 100
tend = 5.0
abs_tol = 1e-10
rel_tol = 1e-8
E_inf = 200.0
E_1 = 800.0
eta_1 = 400.0
E_2 = 300.0
eta_2 = 1500.0

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
  [wiechert]
    type = WiechertElement
    equilibrium_modulus = ${E_inf}
    modulus_1 = ${E_1}
    viscosity_1 = ${eta_1}
    modulus_2 = ${E_2}
    viscosity_2 = ${eta_2}
  []
  [integrate_1]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain_1'
  []
  [integrate_2]
    type = SR2BackwardEulerTimeIntegration
    variable = 'viscous_strain_2'
  []
  [residual]
    type = ComposedModel
    models = 'wiechert integrate_1 integrate_2'
  []
  [predictor]
    type = ConstantExtrapolationPredictor
    unknowns_SR2 = 'viscous_strain_1 viscous_strain_2'
  []
  [update]
    type = ImplicitUpdate
    equation_system = 'eq'
    solver = 'newton'
    predictor = 'predictor'
  []
  [model]
    type = ComposedModel
    models = 'update wiechert'
    additional_outputs = 'viscous_strain_1 viscous_strain_2'
  []
[]

[EquationSystems]
  [eq]
    type = NonlinearSystem
    model = 'residual'
    unknowns = 'viscous_strain_1 viscous_strain_2'
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
