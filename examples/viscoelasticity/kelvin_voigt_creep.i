# Kelvin-Voigt element (KelvinVoigtElement) under a constant applied stress (creep). The strain
# rate comes from SR2VariableRate; the strain is the unknown of the backward-Euler update.
# Exact response: strain = sigma_0 / K (1 - exp(-K t / eta)).
#
#   neml2-run kelvin_voigt_creep.i driver
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
  [rate]
    type = SR2VariableRate
    variable = 'strain'
  []
  [kelvin_voigt]
    type = KelvinVoigtElement
    modulus = ${K}
    viscosity = ${eta}
  []
  [equilibrium]
    type = SR2LinearCombination
    from = 'stress applied_stress'
    weights = '1 -1'
    to = 'strain_residual'
  []
  [residual]
    type = ComposedModel
    models = 'rate kelvin_voigt equilibrium'
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
